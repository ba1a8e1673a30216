import { createHash } from 'node:crypto';
import type { SecretTokens } from '../../../src/application/ports/secret-tokens.port';

/** The SHA-256 (hex) of a token, as the real implementation stores it. */
export function sha256Of(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * Deterministic, distinct, URL-safe tokens (`fake-secret-token-1-…`), hashed with the real
 * SHA-256, so a test can predict a token and find the row it belongs to. Every token is recorded.
 */
export class FakeSecretTokens implements SecretTokens {
  readonly generated: { token: string; hash: string }[] = [];
  private hashes = 0;

  constructor(private readonly prefix = 'fake-secret-token') {}

  generate(): { token: string; hash: string } {
    const n = this.generated.length + 1;
    // As long as a real one (43 characters of base64url), padded so the counter stays visible.
    const token = `${this.prefix}-${n}-`.padEnd(43, 'x');
    const made = { token, hash: sha256Of(token) };
    this.generated.push(made);
    return { ...made };
  }

  hash(token: string): string {
    this.hashes += 1;
    return sha256Of(token);
  }

  /** The most recent token handed out. */
  get last(): { token: string; hash: string } | undefined {
    const last = this.generated.at(-1);
    return last ? { ...last } : undefined;
  }

  get hashCalls(): number {
    return this.hashes;
  }
}
