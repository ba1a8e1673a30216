import { randomBytes } from 'node:crypto';
import { type Algorithm, hash, verify } from '@node-rs/argon2';
import type { PasswordHasher } from '../../application/ports/password-hasher.port';

/** OWASP's argon2id parameters: 19 MiB, 2 passes, 1 lane. Work runs on libuv's thread pool, off the event loop. */
export const ARGON2_OPTIONS = {
  // Algorithm is an ambient const enum, which isolated modules cannot read: 2 is Argon2id.
  algorithm: 2 as Algorithm.Argon2id,
  memoryCost: 19456,
  timeCost: 2,
  parallelism: 1,
} as const;

export class Argon2PasswordHasher implements PasswordHasher {
  private dummy: Promise<string> | null = null;

  async hash(plain: string): Promise<string> {
    return hash(plain, ARGON2_OPTIONS);
  }

  async verify(plain: string, stored: string | undefined): Promise<boolean> {
    if (stored === undefined) {
      // Same cost as a real check, so an unknown user cannot be told apart by time.
      await verify(await this.dummyHash(), plain).catch(() => false);
      return false;
    }
    try {
      return await verify(stored, plain);
    } catch {
      return false;
    }
  }

  private dummyHash(): Promise<string> {
    this.dummy ??= hash(randomBytes(32).toString('base64'), ARGON2_OPTIONS);
    return this.dummy;
  }
}
