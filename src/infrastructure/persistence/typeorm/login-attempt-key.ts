import { DerivedHmac } from '../../crypto/derived-hmac';

/**
 * The lockout row's key of an account (`login_attempts.username_key`): an HMAC-SHA-256 of its lookup key (the
 * lower-cased username, or the name typed for no account), in hex, under a key derived from the second factors' key
 * (DerivedHmac), read at the first key asked for. The name typed is never stored: people type their password into the
 * username field, and the row of a name no account has stays. Every replica that shares MFA_ENCRYPTION_KEY finds the
 * same row; a new key starts the counters over (and, within their five minutes, lets a used sign-in ticket's row be
 * found empty: its code is used up anyway).
 */
export class LoginAttemptKeys {
  private readonly hmac: DerivedHmac;

  constructor(mfaKey: () => Buffer) {
    this.hmac = new DerivedHmac(mfaKey, 'access-control lockout row v1');
  }

  of(account: string): string {
    return this.hmac.hex(account);
  }
}
