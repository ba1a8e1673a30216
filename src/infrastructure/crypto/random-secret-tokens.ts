import { createHash, randomBytes } from 'node:crypto';
import type { SecretTokens } from '../../application/ports/secret-tokens.port';

/** 256 random bits, URL-safe; stored as SHA-256 (a slow hash adds nothing to 256 bits of entropy). */
export class RandomSecretTokens implements SecretTokens {
  generate(): { token: string; hash: string } {
    const token = randomBytes(32).toString('base64url');
    return { token, hash: this.hash(token) };
  }

  hash(token: string): string {
    return createHash('sha256').update(token, 'utf8').digest('hex');
  }
}
