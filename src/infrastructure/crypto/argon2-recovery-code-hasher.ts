import { randomBytes } from 'node:crypto';
import { hashRaw } from '@node-rs/argon2';
import type { RecoveryCodeHasher } from '../../application/ports/recovery-code-hasher.port';
import { ARGON2_OPTIONS } from './argon2-password-hasher';

/** A recovery code as a raw argon2id (the passwords' parameters, on the hashing threads) under its set's salt. */
export class Argon2RecoveryCodeHasher implements RecoveryCodeHasher {
  salt(): string {
    return randomBytes(16).toString('hex');
  }

  async digest(code: string, salt: string): Promise<string> {
    return (await hashRaw(code, { ...ARGON2_OPTIONS, salt: Buffer.from(salt, 'hex'), outputLen: 32 })).toString('hex');
  }
}
