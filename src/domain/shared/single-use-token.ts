/**
 * The single-use secret behind a link mailed to a user: an invitation, a password reset. Only a hash of
 * the token is kept; a user has at most one of each kind, and issuing a newer one kills the older.
 */
export interface SingleUseToken {
  readonly userId: string;
  readonly tokenHash: string;
  readonly createdAt: Date;
  readonly expiresAt: Date;
  readonly usedAt?: Date;
}

export type SingleUseTokenStatus = 'valid' | 'expired' | 'used';

export function singleUseTokenStatus(token: SingleUseToken, now: Date): SingleUseTokenStatus {
  if (token.usedAt !== undefined) return 'used';
  return now.getTime() >= token.expiresAt.getTime() ? 'expired' : 'valid';
}
