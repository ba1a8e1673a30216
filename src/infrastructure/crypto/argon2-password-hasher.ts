import { randomBytes } from 'node:crypto';
import { type Algorithm, hash, verify } from '@node-rs/argon2';
import type { PasswordHasher } from '../../application/ports/password-hasher.port';
import { stabilizedPassword as stabilized } from '../../domain/users/password-policy';

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
    return hash(stabilized(plain), ARGON2_OPTIONS);
  }

  /**
   * Hashes from before 2026-12-05 hold a password as typed: one whose NFKC form differs is tried in that form, then
   * as typed. Known user or not, the same tries run (against the dummy hash when there is none), so the time still
   * tells nothing; an ASCII password, the usual case, is one try.
   */
  async verify(plain: string, stored: string | undefined): Promise<boolean> {
    const form = stabilized(plain);
    const tries = form === plain ? [form] : [form, plain];
    if (stored === undefined) {
      // Same cost as a real check, so an unknown user cannot be told apart by time.
      const dummy = await this.dummyHash();
      for (const attempt of tries) await verify(dummy, attempt).catch(() => false);
      return false;
    }
    for (const attempt of tries) {
      if (await verify(stored, attempt).catch(() => false)) return true;
    }
    return false;
  }

  private dummyHash(): Promise<string> {
    this.dummy ??= hash(randomBytes(32).toString('base64'), ARGON2_OPTIONS);
    return this.dummy;
  }
}
