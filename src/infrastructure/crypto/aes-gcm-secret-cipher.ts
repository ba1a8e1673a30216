import { createCipheriv, createDecipheriv, createSecretKey, type KeyObject, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { SecretCipher } from '../../application/ports/secret-cipher.port';

/** The embedded default's key under DATA_DIR, as the signing key is kept there. */
export const LOCAL_MFA_KEY_FILE = 'mfa-encryption.key';

const VERSION = 'v1';

/**
 * AES-256-GCM: a fresh 96-bit nonce per secret, the tag checked on opening, so a changed row or another key
 * yields no secret (null, and `onUnreadable` told) instead of a wrong one. Stored as `v1.<nonce>.<tag>.<ciphertext>` (base64url).
 */
export class AesGcmSecretCipher implements SecretCipher {
  /** A KeyObject made once: each cipher made from it skips the raw key's import (a third of a small seal's time). */
  private readonly key: KeyObject;

  /** `onUnreadable`: told of each secret that does not open (the operator's sign of a lost or rotated key). */
  constructor(
    key: Buffer,
    private readonly onUnreadable: (reason: string) => void = () => undefined,
  ) {
    if (key.length !== 32) throw new Error('MFA_ENCRYPTION_KEY must be 32 bytes');
    this.key = createSecretKey(key);
  }

  seal(plain: string): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, nonce.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
  }

  open(sealed: string): string | null {
    const [version, nonce, tag, body] = sealed.split('.');
    if (version !== VERSION || !nonce || !tag || body === undefined) {
      this.onUnreadable('not in the v1 form');
      return null;
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(nonce, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      this.onUnreadable('its tag does not verify with this key');
      return null;
    }
  }
}

/** The key as MFA_ENCRYPTION_KEY gives it: 64 hex digits or base64 of 32 bytes; null when it is neither. */
export function parseMfaKey(raw: string): Buffer | null {
  const text = raw.trim();
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, 'hex');
  const bytes = Buffer.from(text, 'base64');
  return bytes.length === 32 ? bytes : null;
}

/**
 * The embedded default: a key generated on first start and kept under DATA_DIR (mode 0600). When DATA_DIR
 * cannot be written the key lives in this process only, and `onEphemeral` says why: factors enrolled then
 * stop working with the process, which only a throwaway test container can live with.
 */
export function loadOrCreateLocalMfaKey(dataDir: string, onEphemeral?: (reason: string) => void): Buffer {
  const file = path.join(dataDir, LOCAL_MFA_KEY_FILE);
  if (!existsSync(file)) {
    const key = randomBytes(32);
    try {
      mkdirSync(dataDir, { recursive: true });
      // 'wx' fails when another process created it meanwhile; then we read theirs.
      writeFileSync(file, key.toString('hex'), { mode: 0o600, flag: 'wx' });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
        onEphemeral?.(`${code}: ${dataDir} is not writable by this user`);
        return key;
      }
      if (code !== 'EEXIST') throw error;
    }
  }
  const key = parseMfaKey(readFileSync(file, 'utf8'));
  if (!key) throw new Error(`${file} does not hold a 32-byte key in hex`);
  return key;
}
