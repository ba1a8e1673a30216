import type { PasswordReset } from '../../domain/users/password-reset';
import type { SingleUseTokenStore } from './single-use-token-store.port';

/** Password-reset tokens as stored (hash only), one per user. Used inside a unit of work. */
export type PasswordResetStore = SingleUseTokenStore<PasswordReset>;
