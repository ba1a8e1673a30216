import { createHmac, createSecretKey, hkdfSync, type KeyObject } from 'node:crypto';
import type { SuccessorTokens } from '../../application/ports/successor-tokens.port';

/**
 * HMAC-SHA-256 of the presented refresh token, base64url (256 bits, as a random token's), under a key derived
 * (HKDF-SHA-256) from the second factors' key, MFA_ENCRYPTION_KEY or the embedded default's: every replica that opens
 * a factor derives the same successor, and the derivation opens nothing else.
 */
export class KeyedSuccessorTokens implements SuccessorTokens {
  private readonly key: KeyObject;

  constructor(mfaKey: Buffer) {
    this.key = createSecretKey(Buffer.from(hkdfSync('sha256', mfaKey, Buffer.alloc(0), 'access-control refresh successor v1', 32)));
  }

  successorOf(presented: string): string {
    return createHmac('sha256', this.key).update(presented, 'utf8').digest('base64url');
  }
}
