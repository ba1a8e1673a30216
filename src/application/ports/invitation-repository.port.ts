import type { Invitation } from '../../domain/invitations/invitation';

export interface InvitationRepository {
  /** Stores the user's new invitation, replacing (and so killing) any older one. */
  replaceForUser(invitation: Invitation): Promise<void>;
  findByTokenHash(tokenHash: string): Promise<Invitation | null>;
  /** Marks the user's invitation used if it is not yet; false when it was used (or is gone) meanwhile. */
  markUsed(userId: string, at: Date): Promise<boolean>;
  deleteForUser(userId: string): Promise<void>;
}
