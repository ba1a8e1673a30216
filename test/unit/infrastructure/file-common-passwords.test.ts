import { ValidationError } from '../../../src/domain/shared/domain-error';
import { assertAcceptablePassword } from '../../../src/domain/users/password-policy';
import { FileCommonPasswords } from '../../../src/infrastructure/security/file-common-passwords';

describe('FileCommonPasswords (the shipped list)', () => {
  const list = new FileCommonPasswords();

  it('holds at least 300 passwords, every one 12 to 128 characters long (shorter ones are refused by length anyway)', () => {
    expect(list.size).toBeGreaterThanOrEqual(300);
  });

  it.each(['password1234', 'PASSWORD1234', '123456789012', 'qwertyuiopas', '1qaz2wsx3edc', 'Iloveyou2024'])(
    'knows %j, compared lower-cased',
    (password) => {
      expect(list.includes(password)).toBe(true);
      expect(() => assertAcceptablePassword(password, 'password', (p) => list.includes(p))).toThrow(ValidationError);
    },
  );

  it('knows a common password typed in full-width letters, the form it would be hashed in (NFKC)', () => {
    expect(list.includes('\uff50\uff41\uff53\uff53\uff57\uff4f\uff52\uff44\uff11\uff12\uff13\uff14')).toBe(true);
  });

  it('lets an uncommon passphrase through', () => {
    expect(list.includes('violet cactus under a tin roof')).toBe(false);
    expect(() => assertAcceptablePassword('violet cactus under a tin roof', 'password', (p) => list.includes(p))).not.toThrow();
  });

  it('names the field in the refusal', () => {
    try {
      assertAcceptablePassword('password1234', 'password', (p) => list.includes(p));
      throw new Error('not refused');
    } catch (error) {
      expect((error as ValidationError).problems).toEqual([{ field: 'password', message: expect.stringMatching(/common/) }]);
    }
  });
});
