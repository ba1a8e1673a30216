import { ValidationError } from '../../../src/domain/shared/domain-error';
import {
  assertAcceptablePassword,
  assertPasswordNotAccountName,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
} from '../../../src/domain/users/password-policy';

describe('assertAcceptablePassword', () => {
  it('allows 12 to 128 characters, as the product rules say', () => {
    expect([PASSWORD_MIN_LENGTH, PASSWORD_MAX_LENGTH]).toEqual([12, 128]);
    expect(() => assertAcceptablePassword('x'.repeat(12))).not.toThrow();
    expect(() => assertAcceptablePassword('x'.repeat(128))).not.toThrow();
  });

  it.each([0, 1, 11, 129, 1000])('refuses %i characters', (length) => {
    expect(() => assertAcceptablePassword('x'.repeat(length))).toThrow(ValidationError);
  });

  it.each(['aaaaaaaaaaaa', '            ', 'alllowercase', '123456789012'])('has no composition rules (%j)', (password) => {
    expect(() => assertAcceptablePassword(password)).not.toThrow();
  });

  it('counts the characters of the form that is hashed (NFKC): an accent typed apart is one character with its letter', () => {
    const decomposed = 'e\u0301'.repeat(4) + 'a\u0301'.repeat(2);
    expect([...decomposed]).toHaveLength(12);
    expect(() => assertAcceptablePassword(decomposed)).toThrow(ValidationError);
    expect(() => assertAcceptablePassword('e\u0301'.repeat(12))).not.toThrow();
  });

  it.each(['OddMarkA\ud800xxxxxxxxxx', 'OddMarkA\udc00xxxxxxxxxx', 'xxxxxxxxxxxxxx\ud83d'])('refuses half of a surrogate pair, which UTF-8 would turn into U+FFFD (%j)', (password) => {
    expect(() => assertAcceptablePassword(password)).toThrow(/surrogate pair/);
  });

  it('counts characters (code points), not UTF-16 units', () => {
    // Each emoji is two UTF-16 units: 11 of them are 22 units but only 11 characters.
    expect(() => assertAcceptablePassword('🔑'.repeat(11))).toThrow(ValidationError);
    expect(() => assertAcceptablePassword('🔑'.repeat(12))).not.toThrow();
    expect(() => assertAcceptablePassword('🔑'.repeat(128))).not.toThrow();
    expect(() => assertAcceptablePassword('🔑'.repeat(129))).toThrow(ValidationError);
  });

  it('names the field "password" by default and the given field otherwise, without echoing the password', () => {
    const problemsOf = (field?: string) => {
      try {
        assertAcceptablePassword('hunter2', field);
      } catch (error) {
        return (error as ValidationError).problems;
      }
      throw new Error('expected a ValidationError');
    };

    expect(problemsOf().map((p) => p.field)).toEqual(['password']);
    expect(problemsOf('ADMIN_PASSWORD').map((p) => p.field)).toEqual(['ADMIN_PASSWORD']);
    expect(JSON.stringify(problemsOf())).not.toContain('hunter2');
  });
});

describe('assertPasswordNotAccountName', () => {
  const account = { username: 'ada.lovelace-1815', email: 'Countess.Of.Lovelace@example.com' };

  it.each([
    ['the username', 'ada.lovelace-1815'],
    ['the username in capitals', 'ADA.LOVELACE-1815'],
    ['the e-mail address', 'countess.of.lovelace@EXAMPLE.com'],
    ['the address before its @', 'Countess.Of.Lovelace'],
    ['the username with spaces around it', '  ada.lovelace-1815 '],
    ['the username in full-width letters (one password once hashed, NFKC)', '\uff41\uff44\uff41.lovelace-1815'],
    ['the address with its domain in another spelling', 'countess.of.lovelace@\uff45\uff58\uff41\uff4d\uff50\uff4c\uff45.COM'],
  ])('refuses %s, naming the field', (_label, password) => {
    expect(() => assertPasswordNotAccountName(password, account, 'new_password')).toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED', problems: [{ field: 'new_password', message: 'must not be your username or e-mail address' }] }),
    );
  });

  it('refuses the whole address typed in ASCII when the account\'s own is in full-width letters', () => {
    expect(() => assertPasswordNotAccountName('ada.lovelace@example.org', { email: '\uff41\uff44\uff41.lovelace@example.org' })).toThrow(ValidationError);
  });

  it.each(['ada.lovelace-1815!', 'countess.of.lovelace@example.org', 'a long passphrase of my own'])('accepts what only resembles them (%j)', (password) => {
    expect(() => assertPasswordNotAccountName(password, account)).not.toThrow();
  });

  it('checks what it is given: an invitee has no username yet, an address no local part to spare', () => {
    expect(() => assertPasswordNotAccountName('ada.lovelace-1815', { email: account.email })).not.toThrow();
    expect(() => assertPasswordNotAccountName('Countess.Of.Lovelace', { username: account.username })).not.toThrow();
    expect(() => assertPasswordNotAccountName('', {})).not.toThrow();
  });
});
