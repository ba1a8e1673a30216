import { createHmac, createSecretKey, type KeyObject, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import type { Base32Plugin, CryptoPlugin } from '@otplib/core';
import { verify } from '@otplib/totp';
import { generateTOTP } from '@otplib/uri';
import { toDataURL } from 'qrcode';
import type { RecoveryCodeGenerator, Totp } from '../../application/ports/totp.port';
import { TOTP_STEP_SECONDS } from '../../domain/mfa/mfa';

const PERIOD_SECONDS = TOTP_STEP_SECONDS;
const SECRET_BYTES = 20;

/**
 * The key of each secret being checked, imported once: verify hands the HMAC the same decoded bytes for each step
 * of the window, and an HMAC given raw bytes imports them again each time (about 9 µs of the 11 a code's HMAC takes).
 */
const importedKeys = new WeakMap<Uint8Array, KeyObject>();

/**
 * otplib's own plugins (noble, scure) ship as ES modules only, which the CommonJS build and its tests cannot
 * load: node:crypto serves instead, and base32 (RFC 4648, what authenticator apps read) is a few lines.
 */
const nodeCrypto: CryptoPlugin = {
  name: 'node-crypto',
  hmac: (algorithm, key, data) => new Uint8Array(createHmac(algorithm, importedKeys.get(key) ?? key).update(data).digest()),
  randomBytes: (length) => new Uint8Array(randomBytes(length)),
  constantTimeEqual: (a, b) => {
    const left = typeof a === 'string' ? Buffer.from(a) : Buffer.from(a);
    const right = typeof b === 'string' ? Buffer.from(b) : Buffer.from(b);
    return left.length === right.length && timingSafeEqual(left, right);
  },
};

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

const base32: Base32Plugin = {
  name: 'rfc4648-base32',
  encode(data, options) {
    let bits = 0;
    let value = 0;
    let out = '';
    for (const byte of data) {
      value = (value << 8) | byte;
      bits += 8;
      while (bits >= 5) {
        out += BASE32[(value >>> (bits - 5)) & 31];
        bits -= 5;
      }
    }
    if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
    return options?.padding ? out.padEnd(Math.ceil(out.length / 8) * 8, '=') : out;
  },
  decode(text) {
    const clean = text.toUpperCase().replace(/[=\s]/g, '');
    const bytes: number[] = [];
    let bits = 0;
    let value = 0;
    for (const char of clean) {
      const index = BASE32.indexOf(char);
      if (index < 0) throw new Error('not base32');
      value = (value << 5) | index;
      bits += 5;
      if (bits >= 8) {
        bytes.push((value >>> (bits - 8)) & 255);
        bits -= 8;
      }
    }
    return new Uint8Array(bytes);
  },
};

/** RFC 6238 through otplib: SHA-1, six digits, 30-second steps, one step of drift either way. */
export class OtplibTotp implements Totp {
  private readonly issuer: string;

  /**
   * The key URI format allows no colon in the issuer nor in the account name (the label is `issuer:account`): a
   * `host:port` issuer read as issuer `host` and account `port:name`. Colons become spaces.
   */
  constructor(issuer: string) {
    this.issuer = withoutColons(issuer);
  }

  newSecret(): string {
    return base32.encode(randomBytes(SECRET_BYTES));
  }

  uri(secret: string, accountName: string): string {
    return generateTOTP({ issuer: this.issuer, label: withoutColons(accountName), secret, period: PERIOD_SECONDS, digits: 6, algorithm: 'sha1' });
  }

  qrCode(uri: string): Promise<string> {
    return toDataURL(uri, { errorCorrectionLevel: 'M', margin: 2, width: 240 });
  }

  async verify(secret: string, code: string, now: Date, afterStep: number | null): Promise<number | null> {
    try {
      // Decoded once and imported once, for every step of the window (otplib decodes a base32 secret at each).
      const bytes = base32.decode(secret);
      importedKeys.set(bytes, createSecretKey(bytes));
      const result = await verify({
        secret: bytes,
        token: code,
        crypto: nodeCrypto,
        base32,
        period: PERIOD_SECONDS,
        epoch: Math.floor(now.getTime() / 1000),
        epochTolerance: PERIOD_SECONDS,
        ...(afterStep !== null ? { afterTimeStep: afterStep } : {}),
      });
      return result.valid ? result.timeStep : null;
    } catch {
      // A step recorded ahead of this clock (another replica's drift) or a malformed code: not a valid code.
      return null;
    }
  }
}

const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/** Two groups of five from an alphabet without look-alikes (no i, l, o, 0, 1): about 49 random bits. */
export class RandomRecoveryCodes implements RecoveryCodeGenerator {
  next(): string {
    const chars = Array.from({ length: 10 }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  }
}

const withoutColons = (text: string) => text.replace(/:/g, ' ').trim();
