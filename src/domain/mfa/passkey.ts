import { DomainError, ValidationError } from '../shared/domain-error';
import { hasHiddenControls } from '../users/display-name';

/**
 * A passkey (a WebAuthn credential) registered as a second factor (#24). Several per user, each with a name.
 * `publicKey` is the credential's COSE public key (base64url): public, but kept out of events and answers all
 * the same, as nothing outside the check needs it.
 */
export interface Passkey {
  readonly id: string;
  readonly userId: string;
  readonly name: string;
  /** The authenticator's credential id, base64url; unique across users. */
  readonly credentialId: string;
  readonly publicKey: string;
  /** The signature counter last seen: an assertion must carry a greater one (or both stay 0). */
  readonly counter: number;
  readonly transports: readonly string[];
  readonly createdAt: Date;
  readonly lastUsedAt: Date | null;
}

export type WebAuthnCeremony = 'registration' | 'authentication';

/** A challenge handed to a browser, stored as its SHA-256 until one response uses it (single use, short-lived). */
export interface WebAuthnChallenge {
  readonly challengeHash: string;
  readonly userId: string;
  readonly ceremony: WebAuthnCeremony;
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

export const WEBAUTHN_CHALLENGE_TTL_SECONDS = 300;
export const PASSKEY_NAME_MAX_LENGTH = 64;
export const MAX_PASSKEYS_PER_USER = 10;

/** Whether an assertion's counter may follow the stored one: it grew, or the authenticator keeps none (both 0). */
export function counterAdvances(stored: number, received: number): boolean {
  return received > stored || (stored === 0 && received === 0);
}

/** A name as shown: trimmed, never empty (the default names the order of registration), no control characters (as a person's name). */
export function passkeyName(given: string | undefined, ordinal: number): string {
  const trimmed = (given ?? '').trim();
  if (hasHiddenControls(trimmed)) throw new ValidationError([{ field: 'name', message: 'must have no control characters or bidirectional overrides' }]);
  // By code points, as the schema's maxLength counts: a UTF-16 cut could split an emoji's surrogate pair.
  return trimmed.length > 0 ? Array.from(trimmed).slice(0, PASSKEY_NAME_MAX_LENGTH).join('') : `Passkey ${ordinal}`;
}

export class PasskeyNotFoundError extends DomainError {
  readonly code = 'PASSKEY_NOT_FOUND';

  constructor() {
    super('The caller has no passkey with this id');
  }
}

export class PasskeyLimitError extends DomainError {
  readonly code = 'PASSKEY_LIMIT_REACHED';

  constructor() {
    super(`At most ${MAX_PASSKEYS_PER_USER} passkeys per user: remove one first`);
  }
}

/**
 * A registration response that does not verify: its challenge is unknown, used or expired, its origin or relying
 * party is not this service's, its attestation does not check out, or the credential is registered already.
 */
export class InvalidWebAuthnResponseError extends DomainError {
  readonly code = 'INVALID_WEBAUTHN_RESPONSE';

  constructor(reason = 'The passkey response does not verify: ask for new options and try again') {
    super(reason);
  }
}
