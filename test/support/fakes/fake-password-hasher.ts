import type { PasswordHasher } from '../../../src/application/ports/password-hasher.port';
import { ioBoundary } from './io-boundary';

/** The hash the fake stores for `plain`: deterministic, and does not contain the plain text. */
export function fakeHashOf(plain: string): string {
  return `$fake-argon2id$${Buffer.from(plain, 'utf8').toString('base64')}`;
}

/** Records every call, so tests can assert that the (dummy) verification work was done. */
export class FakePasswordHasher implements PasswordHasher {
  readonly hashed: string[] = [];
  readonly verifications: { plain: string; hash: string | undefined }[] = [];

  async hash(plain: string): Promise<string> {
    await ioBoundary();
    this.hashed.push(plain);
    return fakeHashOf(plain);
  }

  async verify(plain: string, hash: string | undefined): Promise<boolean> {
    await ioBoundary();
    // Counted whether or not there is a hash: the real one burns the same time on a dummy hash.
    this.verifications.push({ plain, hash });
    return hash !== undefined && hash === fakeHashOf(plain);
  }

  get hashCalls(): number {
    return this.hashed.length;
  }

  get verifyCalls(): number {
    return this.verifications.length;
  }
}
