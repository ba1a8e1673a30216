import { createCipheriv, createDecipheriv, createSecretKey, hkdfSync, type KeyObject, randomBytes } from 'node:crypto';
import type { SignInTicketClaims, SignInTickets } from '../../application/ports/sign-in-tickets.port';

const FORM = 't1';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
/** More than a ticket of a 64-character account key takes (about 230 characters), as the routes allow: anything longer is not ours. */
const MAX_TOKEN_LENGTH = 512;

/**
 * Sign-in tickets sealed with AES-256-GCM: `t1.<base64url of nonce, ciphertext and tag>`, a fresh 96-bit nonce each.
 * The key is derived (HKDF-SHA-256) from the second factors' key, MFA_ENCRYPTION_KEY or the embedded default's, so
 * every replica that opens a factor's secret opens a ticket too, and a ticket never opens a secret nor the reverse.
 */
export class SealedSignInTickets implements SignInTickets {
  private readonly key: KeyObject;

  constructor(mfaKey: Buffer) {
    this.key = createSecretKey(Buffer.from(hkdfSync('sha256', mfaKey, Buffer.alloc(0), 'access-control sign-in ticket v1', 32)));
  }

  issue(claims: SignInTicketClaims): string {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    cipher.setAAD(Buffer.from(FORM));
    const payload = JSON.stringify({ u: claims.userId, k: claims.accountKey, t: claims.issuedAtMicros, m: claims.passwordMatched ? 1 : 0, v: claims.tokenVersion });
    const body = Buffer.concat([cipher.update(payload, 'utf8'), cipher.final()]);
    return `${FORM}.${Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64url')}`;
  }

  open(token: string): SignInTicketClaims | null {
    if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH || !token.startsWith(`${FORM}.`)) return null;
    const sealed = Buffer.from(token.slice(FORM.length + 1), 'base64url');
    if (sealed.length <= NONCE_BYTES + TAG_BYTES) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, sealed.subarray(0, NONCE_BYTES));
      decipher.setAAD(Buffer.from(FORM));
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
      const plain = Buffer.concat([decipher.update(sealed.subarray(NONCE_BYTES, sealed.length - TAG_BYTES)), decipher.final()]).toString('utf8');
      const { u, k, t, m, v } = JSON.parse(plain) as { u?: unknown; k?: unknown; t?: unknown; m?: unknown; v?: unknown };
      if (typeof u !== 'string' || typeof k !== 'string' || typeof t !== 'number' || !Number.isSafeInteger(t) || (m !== 0 && m !== 1)) return null;
      // No token version (a ticket of the version before 2026-12-05, five minutes at most): not one this version honours.
      if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) return null;
      return { userId: u, accountKey: k, issuedAtMicros: t, passwordMatched: m === 1, tokenVersion: v };
    } catch {
      // A tag that does not verify: forged, changed, or sealed with another key.
      return null;
    }
  }
}
