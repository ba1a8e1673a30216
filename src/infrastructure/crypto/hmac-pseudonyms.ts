import { createHmac, createSecretKey, hkdfSync, type KeyObject } from 'node:crypto';
import type { Pseudonyms } from '../../application/ports/pseudonyms.port';

/**
 * Pseudonyms as HMAC-SHA-256 under a key derived (HKDF) from the second factors' key, MFA_ENCRYPTION_KEY or the
 * embedded default's: every replica that shares that key names a text alike, and the key never leaves the process
 * (a reader of the trail or of its Kafka topic cannot test guesses against a name). 64 bits of the HMAC, in hex.
 */
export class HmacPseudonyms implements Pseudonyms {
  private key: KeyObject | undefined;

  /**
   * `mfaKey` may be given as a function, called at the first pseudonym: a process that never names one (the CLI's
   * create-admin, which audits too) never loads the key, nor makes one under DATA_DIR.
   */
  constructor(private readonly mfaKey: Buffer | (() => Buffer)) {}

  of(text: string): string {
    this.key ??= createSecretKey(
      Buffer.from(hkdfSync('sha256', typeof this.mfaKey === 'function' ? this.mfaKey() : this.mfaKey, Buffer.alloc(0), 'access-control audit pseudonym v1', 32)),
    );
    return createHmac('sha256', this.key).update(text, 'utf8').digest('hex').slice(0, 16);
  }
}
