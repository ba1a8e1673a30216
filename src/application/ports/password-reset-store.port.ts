import type { PasswordReset } from '../../domain/users/password-reset';

/** Password-reset tokens as stored (hash only), one per user. Used inside a unit of work. */
export interface PasswordResetStore {
  /** Stores the user's new reset, replacing (and so killing) any older one. */
  replaceForUser(reset: PasswordReset): Promise<void>;
  findByTokenHash(tokenHash: string): Promise<PasswordReset | null>;
  /** Marks the user's reset used if it is not yet; false when it was used (or is gone) meanwhile. */
  markUsed(userId: string, at: Date): Promise<boolean>;
}
