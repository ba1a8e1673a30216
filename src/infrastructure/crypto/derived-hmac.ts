import { createHmac, createSecretKey, hkdfSync, type KeyObject } from 'node:crypto';

/**
 * HMAC-SHA-256 under a key derived (HKDF-SHA-256, its own `label`) from the second factors' key, MFA_ENCRYPTION_KEY or
 * the embedded default's: every replica that shares that key computes the same values, and no two labels' keys are
 * alike. `mfaKey` may be given as a function, called at the first value asked for: a process that never asks never
 * loads the key, nor makes one under DATA_DIR.
 */
export class DerivedHmac {
  private key: KeyObject | undefined;

  constructor(
    private readonly mfaKey: Buffer | (() => Buffer),
    private readonly label: string,
  ) {}

  /** The HMAC of `text` (UTF-8), in hex: 64 characters. */
  hex(text: string): string {
    this.key ??= createSecretKey(Buffer.from(hkdfSync('sha256', typeof this.mfaKey === 'function' ? this.mfaKey() : this.mfaKey, Buffer.alloc(0), this.label, 32)));
    return createHmac('sha256', this.key).update(text, 'utf8').digest('hex');
  }
}
