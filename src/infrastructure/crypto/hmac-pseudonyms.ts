import { createHmac, createSecretKey, hkdfSync, type KeyObject } from 'node:crypto';
import type { Pseudonyms } from '../../application/ports/pseudonyms.port';

/**
 * Pseudonyms as HMAC-SHA-256 under a key derived (HKDF) from the second factors' key, MFA_ENCRYPTION_KEY or the
 * embedded default's: every replica that shares that key names a text alike, and the key never leaves the process
 * (a reader of the trail or of its Kafka topic cannot test guesses against a name). 64 bits of the HMAC, in hex.
 */
export class HmacPseudonyms implements Pseudonyms {
  private readonly key: KeyObject;

  constructor(mfaKey: Buffer) {
    this.key = createSecretKey(Buffer.from(hkdfSync('sha256', mfaKey, Buffer.alloc(0), 'access-control audit pseudonym v1', 32)));
  }

  of(text: string): string {
    return createHmac('sha256', this.key).update(text, 'utf8').digest('hex').slice(0, 16);
  }
}
