import { createHmac, createSecretKey, hkdfSync, type KeyObject } from 'node:crypto';

/**
 * The lockout row's key of an account (`login_attempts.username_key`): an HMAC-SHA-256 of its lookup key (the
 * lower-cased username, or the name typed for no account), in hex, under a key derived from the second factors' key.
 * The name typed is never stored: people type their password into the username field, and the row of a name no
 * account has stays. Every replica that shares MFA_ENCRYPTION_KEY finds the same row; a new key starts the counters
 * over (and, within their five minutes, lets a used sign-in ticket's row be found empty: its code is used up anyway).
 */
export class LoginAttemptKeys {
  private key: KeyObject | undefined;

  /** `mfaKey` is read at the first key asked for: a process that counts no sign-in never loads it. */
  constructor(private readonly mfaKey: () => Buffer) {}

  of(account: string): string {
    this.key ??= createSecretKey(Buffer.from(hkdfSync('sha256', this.mfaKey(), Buffer.alloc(0), 'access-control lockout row v1', 32)));
    return createHmac('sha256', this.key).update(account, 'utf8').digest('hex');
  }
}
