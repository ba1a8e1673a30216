import type { PasswordReset } from '../../domain/users/password-reset';
import type { SingleUseTokenStore } from './single-use-token-store.port';

/** Password-reset tokens as stored (hash only), one per user. Used inside a unit of work. */
export type PasswordResetStore = SingleUseTokenStore<PasswordReset> & {
  /** Kills the user's outstanding link, if any: its password changed, or the user was deactivated. */
  deleteForUser(userId: string): Promise<void>;
};
