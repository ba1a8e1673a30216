import type { Invitation } from '../../domain/invitations/invitation';
import type { SingleUseTokenStore } from './single-use-token-store.port';

export interface InvitationRepository extends SingleUseTokenStore<Invitation> {
  deleteForUser(userId: string): Promise<void>;
  /** The user's current invitation (used or not), or null: when its link expires, for the user's answer (#25). */
  findForUser(userId: string): Promise<Invitation | null>;
}
