import { DomainError } from '../shared/domain-error';

/** The kinds of second factor kept in `mfa_factors`: one of each at most. */
export type MfaFactorType = 'totp';

/** Every kind of second factor a user can hold: an authenticator app, or passkeys (several, see passkey.ts). */
export type SecondFactorKind = MfaFactorType | 'webauthn';

/**
 * A second factor as stored. `secret` is sealed (encrypted at rest): only the store and the use case that
 * checks a code ever see it, and it leaves the service once, in the answer that starts the enrollment.
 */
export interface MfaFactor {
  readonly id: string;
  readonly userId: string;
  readonly type: MfaFactorType;
  readonly sealedSecret: string;
  readonly createdAt: Date;
  /** Null while the enrollment waits for its first code: such a factor is not active. */
  readonly confirmedAt: Date | null;
  /** The last TOTP time step a code was accepted for: no code of it or of an earlier step works again. */
  readonly lastUsedStep: number | null;
}

/** A recovery code as stored: its SHA-256 only. */
export interface RecoveryCode {
  readonly userId: string;
  readonly codeHash: string;
  /** The salt of the code's set; null on codes stored before salts (their hash a plain SHA-256). */
  readonly salt: string | null;
  readonly createdAt: Date;
  readonly usedAt: Date | null;
}

export const RECOVERY_CODE_COUNT = 10;
/**
 * How long an authenticator app's enrollment waits for its confirming code: long enough to install an app and scan,
 * short enough that a pending secret (started on the owner's proof) is not a standing way in for whoever holds a
 * token later. Older, it confirms nothing: start again.
 */
export const TOTP_ENROLLMENT_TTL_SECONDS = 600;
/** How long a sign-in's second-step ticket (mfa_token) works after its password step. */
export const MFA_CHALLENGE_TTL_SECONDS = 300;

/** An authenticator app's time step (RFC 6238's X): a code is that of the 30-second step it falls in. */
export const TOTP_STEP_SECONDS = 30;

/**
 * When a code of the factor was last accepted (a sign-in, a proof, or the code that confirmed it), as its time step
 * tells it: the step's start, within a step (and the drift allowed) of the moment, and never before the factor was
 * created nor after `now` (a code of the next step is accepted early); null when none was.
 */
export function lastUsedAt(factor: MfaFactor, now: Date): Date | null {
  if (factor.lastUsedStep === null) return null;
  const stepStart = factor.lastUsedStep * TOTP_STEP_SECONDS * 1000;
  return new Date(Math.min(Math.max(stepStart, factor.createdAt.getTime()), now.getTime()));
}

/** Whether the factor is active: confirmed by a first code. */
export function isConfirmed(factor: MfaFactor): boolean {
  return factor.confirmedAt !== null;
}

export class MfaAlreadyEnabledError extends DomainError {
  readonly code = 'MFA_ALREADY_ENABLED';

  constructor() {
    super('An authenticator app is enrolled already: remove it first to enroll another');
  }
}

export class MfaEnrollmentNotStartedError extends DomainError {
  readonly code = 'MFA_ENROLLMENT_NOT_STARTED';

  constructor(expired = false) {
    super(
      expired
        ? `The enrollment was started more than ${TOTP_ENROLLMENT_TTL_SECONDS / 60} minutes ago: start again at POST /v1/me/mfa/totp`
        : 'No enrollment is waiting for a code: start one at POST /v1/me/mfa/totp',
    );
  }
}

/**
 * An admin's reset of a user's factors while the user's second step is closed (MFA_MAX_FAILURES codes refused after a
 * right password): someone has the password, and a reset would hand them the account. The password is reset first.
 */
export class SecondFactorClosedError extends DomainError {
  readonly code = 'SECOND_FACTOR_CLOSED';

  constructor(
    message = 'The user’s second step is closed after too many refused codes, so someone else may have the password: the user resets the password first ' +
      '(POST /v1/auth/password-reset), which opens it again; reset the factors after that if they are still lost',
  ) {
    super(message);
  }
}

export class MfaNotEnabledError extends DomainError {
  readonly code = 'MFA_NOT_ENABLED';

  constructor(message = 'No authenticator app is enrolled') {
    super(message);
  }
}

/**
 * A TOTP code that is wrong, too old, or used already: one answer for all. The default message is for the routes that
 * take an authenticator app's code alone (confirming one, proving one's factor); the second step of a sign-in says
 * its own, which names every proof it takes.
 */
export class InvalidMfaCodeError extends DomainError {
  readonly code = 'INVALID_MFA_CODE';

  constructor(message = 'The code is not valid: use the current code of your authenticator app') {
    super(message);
  }
}

/** The second step's ticket is unknown, expired, used, or its user cannot sign in any more: one answer for all. */
export class InvalidMfaTokenError extends DomainError {
  readonly code = 'INVALID_MFA_TOKEN';

  constructor() {
    super('The mfa_token is not valid: sign in again');
  }
}
