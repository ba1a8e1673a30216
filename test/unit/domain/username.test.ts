import { ValidationError } from '../../../src/domain/shared/domain-error';
import { Username } from '../../../src/domain/users/username';

describe('Username', () => {
  it.each(['abc', 'Ada.Lovelace', 'a_b-c.d', '123', 'x'.repeat(64), '...', 'UPPER-case_09'])('accepts %j', (raw) => {
    expect(Username.parse(raw).value).toBe(raw);
  });

  it.each([
    ['too short', 'ab'],
    ['too long', 'x'.repeat(65)],
    ['empty', ''],
    ['a space', 'ada lovelace'],
    ['a leading space', ' ada'],
    ['an @', 'ada@example.com'],
    ['a non-ASCII letter', 'adä'],
    ['a slash', 'ada/lovelace'],
    ['a newline', 'ada\nlovelace'],
    ['a precomposed accent', 'jos\u00e9'],
    ['a decomposed accent', 'jose\u0301'],
    ['a zero-width space', 'bob\u200b'],
    ['a byte order mark', '\ufeffbob'],
    ['a fullwidth letter', '\uff42ob'],
  ])('refuses a username with %s', (_label, raw) => {
    expect(() => Username.parse(raw)).toThrow(ValidationError);
  });

  it('names the field "username" by default and the given field otherwise', () => {
    const fieldOf = (field?: string) => {
      try {
        Username.parse('no', field);
      } catch (error) {
        return (error as ValidationError).problems.map((p) => p.field);
      }
      throw new Error('expected a ValidationError');
    };

    expect(fieldOf()).toEqual(['username']);
    expect(fieldOf('ADMIN_USERNAME')).toEqual(['ADMIN_USERNAME']);
  });

  it('keeps the username as given and keys it case-insensitively', () => {
    const username = Username.parse('Ada.Lovelace');

    expect(username.value).toBe('Ada.Lovelace');
    expect(username.normalized).toBe('ada.lovelace');
    expect(Username.normalize('ADA.LOVELACE')).toBe(username.normalized);
  });

  it('keys any spelling of an accent alike (NFC), as sign-in looks names up by what it is given', () => {
    expect(Username.normalize('JOSE\u0301')).toBe(Username.normalize('jos\u00e9'));
    expect(Username.normalize('jose\u0301')).toBe('jos\u00e9');
  });
});
