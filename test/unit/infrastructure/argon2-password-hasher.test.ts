import { hash } from '@node-rs/argon2';
import { ARGON2_OPTIONS, Argon2PasswordHasher } from '../../../src/infrastructure/crypto/argon2-password-hasher';

const hasher = new Argon2PasswordHasher();

describe('Argon2PasswordHasher', () => {
  it('verifies the password it hashed, and no other', async () => {
    const stored = await hasher.hash('a long passphrase');
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await hasher.verify('a long passphrase', stored)).toBe(true);
    expect(await hasher.verify('a long passphrasE', stored)).toBe(false);
    expect(await hasher.verify('a long passphrase', undefined)).toBe(false);
  });

  it.each([
    ['a precomposed accent and a combining one', 'caf\u00e9 au lait, noir', 'cafe\u0301 au lait, noir'],
    ['full-width letters and ASCII ones', '\uff50\uff41\uff53\uff53phrase of mine', 'passphrase of mine'],
    ['a ligature and its letters', 'the \ufb01rst of many words', 'the first of many words'],
  ])('takes %s as one password (NFKC), whichever was set', async (_label, one, other) => {
    expect(await hasher.verify(other, await hasher.hash(one))).toBe(true);
    expect(await hasher.verify(one, await hasher.hash(other))).toBe(true);
  });

  it('still verifies a hash made before passwords were normalised, of the password as typed', async () => {
    const typed = 'cafe\u0301 au lait, noir';
    const legacy = await hash(typed, ARGON2_OPTIONS);
    expect(await hasher.verify(typed, legacy)).toBe(true);
    expect(await hasher.verify('cafe\u0301 au lait, noiR', legacy)).toBe(false);
  });

  it('refuses a malformed stored hash without throwing', async () => {
    expect(await hasher.verify('a long passphrase', 'not a hash')).toBe(false);
  });
});
