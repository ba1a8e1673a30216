/**
 * The single-use secret behind an invitation link. Only a hash of the token is kept; a user has at
 * most one live invitation, and issuing a new one (a resend) kills the old.
 */
export interface Invitation {
  readonly userId: string;
  readonly tokenHash: string;
  readonly createdAt: Date;
  readonly expiresAt: Date;
  readonly usedAt?: Date;
}

export type InvitationStatus = 'valid' | 'expired' | 'used';

export function invitationStatus(invitation: Invitation, now: Date): InvitationStatus {
  if (invitation.usedAt !== undefined) return 'used';
  return now.getTime() >= invitation.expiresAt.getTime() ? 'expired' : 'valid';
}
