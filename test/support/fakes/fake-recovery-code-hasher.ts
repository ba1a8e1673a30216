import { createHash } from 'node:crypto';
import type { RecoveryCodeHasher } from '../../../src/application/ports/recovery-code-hasher.port';

/** Salts in sequence and SHA-256 of salt and code: a distinct, repeatable hash per salt, without argon2's cost. */
export class FakeRecoveryCodeHasher implements RecoveryCodeHasher {
  private made = 0;

  salt(): string {
    this.made += 1;
    return this.made.toString(16).padStart(32, '0');
  }

  async digest(code: string, salt: string): Promise<string> {
    return createHash('sha256').update(`${salt}:${code}`).digest('hex');
  }
}
