import type { Invitation } from '../../domain/invitations/invitation';
import type { SingleUseTokenStore } from './single-use-token-store.port';

export interface InvitationRepository extends SingleUseTokenStore<Invitation> {
  deleteForUser(userId: string): Promise<void>;
}
