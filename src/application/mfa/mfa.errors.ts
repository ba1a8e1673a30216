import type { SecondFactorKind } from '../../domain/mfa/mfa';
import { DomainError } from '../../domain/shared/domain-error';

export type MfaMethod = SecondFactorKind | 'recovery_code';

/**
 * The password was right and the user holds a second factor: not signed in yet. Carries the ticket of the
 * second step (`POST /v1/auth/signin/mfa`) and the methods that can complete it.
 */
export class MfaRequiredError extends DomainError {
  readonly code = 'MFA_REQUIRED';

  constructor(
    readonly mfaToken: string,
    readonly methods: readonly MfaMethod[],
    readonly expiresInSeconds: number,
    /** For a user with a passkey: the options of a WebAuthn assertion (`navigator.credentials.get`). */
    readonly webauthnOptions: Record<string, unknown> | null = null,
  ) {
    super('A second factor is required: send the mfa_token with a code, a recovery code or a passkey assertion to POST /v1/auth/signin/mfa');
  }
}
