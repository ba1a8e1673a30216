import { Argon2RecoveryCodeHasher } from '../../../src/infrastructure/crypto/argon2-recovery-code-hasher';

describe('Argon2RecoveryCodeHasher', () => {
  const hasher = new Argon2RecoveryCodeHasher();

  it('hashes a code under its salt, the same each time, another under another salt', async () => {
    const salt = hasher.salt();
    expect(salt).toMatch(/^[0-9a-f]{32}$/);
    expect(hasher.salt()).not.toBe(salt);
    const digest = await hasher.digest('abcdefghij', salt);
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(await hasher.digest('abcdefghij', salt)).toBe(digest);
    expect(await hasher.digest('abcdefghik', salt)).not.toBe(digest);
    expect(await hasher.digest('abcdefghij', hasher.salt())).not.toBe(digest);
  });
});
