import type { Invitation } from '../../domain/invitations/invitation';

export interface InvitationRepository {
  /** Stores the user's new invitation, replacing (and so killing) any older one. */
  replaceForUser(invitation: Invitation): Promise<void>;
  findByTokenHash(tokenHash: string): Promise<Invitation | null>;
  markUsed(userId: string, at: Date): Promise<void>;
  deleteForUser(userId: string): Promise<void>;
}
