import { randomBytes } from 'node:crypto';
import { hashRaw } from '@node-rs/argon2';
import type { RecoveryCodeHasher } from '../../application/ports/recovery-code-hasher.port';
import { ARGON2_OPTIONS } from './argon2-password-hasher';

/**
 * argon2id for a recovery code, lighter than a password's: 4 MiB and 2 passes, about 2 ms. A code is random (~49 bits,
 * not a word a person chose), so a guess a millisecond still leaves about 10 000 core-years a user's set; a password's
 * 19 MiB made each regeneration (ten codes) cost ten sign-ins, which anyone with a factor and a password could ask for
 * again and again (review of 88ae2e7).
 */
export const RECOVERY_CODE_ARGON2 = { ...ARGON2_OPTIONS, memoryCost: 4096, timeCost: 2, outputLen: 32 } as const;

/** A recovery code as a raw argon2id (RECOVERY_CODE_ARGON2, on the hashing threads) under its set's salt. */
export class Argon2RecoveryCodeHasher implements RecoveryCodeHasher {
  salt(): string {
    return randomBytes(16).toString('hex');
  }

  async digest(code: string, salt: string): Promise<string> {
    return (await hashRaw(code, { ...RECOVERY_CODE_ARGON2, salt: Buffer.from(salt, 'hex') })).toString('hex');
  }
}
