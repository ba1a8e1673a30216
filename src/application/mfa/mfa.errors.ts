import type { MfaFactorType } from '../../domain/mfa/mfa';
import { DomainError } from '../../domain/shared/domain-error';

export type MfaMethod = MfaFactorType | 'recovery_code';

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
  ) {
    super('A second factor is required: send the mfa_token with a code to POST /v1/auth/signin/mfa');
  }
}
