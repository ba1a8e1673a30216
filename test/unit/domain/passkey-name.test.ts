import { PASSKEY_NAME_MAX_LENGTH, passkeyName } from '../../../src/domain/mfa/passkey';

describe('a passkey’s name (#24)', () => {
  it('is the given name, trimmed, or "Passkey n" when none is given', () => {
    expect(passkeyName('  Laptop  ', 1)).toBe('Laptop');
    expect(passkeyName('   ', 3)).toBe('Passkey 3');
    expect(passkeyName(undefined, 2)).toBe('Passkey 2');
  });

  it('is cut at the limit by characters (code points), as the schema counts, never inside an emoji', () => {
    const emoji = '\u{1F600}';
    const given = `a${emoji.repeat(PASSKEY_NAME_MAX_LENGTH - 1)}`;
    expect(passkeyName(given, 1)).toBe(given);
    const longer = passkeyName(`a${emoji.repeat(PASSKEY_NAME_MAX_LENGTH + 5)}`, 1);
    expect(longer).toBe(given);
  });

  it('refuses control characters, as a person’s name does (a NUL, a line break, DEL): 400 naming the field', () => {
    for (const given of ['\u0000', 'Work\nlaptop', 'Key\u007f', '\tTab\u0001', 'Key\u202egnp', 'Key \ud83d', '\ude00']) {
      expect(() => passkeyName(given, 1)).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED', problems: [{ field: 'name', message: 'must have no control characters or bidirectional overrides' }] }));
    }
    expect(passkeyName('\tLaptop\n', 1)).toBe('Laptop');
  });
});
