import { ValidationError } from '../../../src/domain/shared/domain-error';
import { nameSearchKey, parseDisplayName } from '../../../src/domain/users/display-name';

describe('parseDisplayName', () => {
  // A zero-width non-joiner (Persian spelling) and an emoji's joiners stay.
  it.each(['A', 'Ada Lovelace', 'José Álvarez-Núñez', '李小龍', 'x'.repeat(200), 'می\u200cخواهم', '👩\u200d💻 Ada'])('accepts %j', (raw) => {
    expect(parseDisplayName(raw)).toBe(raw);
  });

  it('trims surrounding white space', () => {
    expect(parseDisplayName('   Ada Lovelace \t')).toBe('Ada Lovelace');
  });

  it.each([
    ['empty', ''],
    ['blank', '   \t '],
    ['201 characters', 'x'.repeat(201)],
    ['a newline', 'Ada\nLovelace'],
    ['a tab inside', 'Ada\tLovelace'],
    ['a NUL', 'Ada\u0000'],
    ['a DEL', 'Ada\u007f'],
    ['an escape sequence', 'Ada\u001b[31m'],
    ['a right-to-left override', 'Ada\u202egnp.exe'],
    ['a left-to-right isolate', '\u2066Ada\u2069'],
    ['half a surrogate pair (high)', 'Ada \ud83d'],
    ['half a surrogate pair (low)', '\ude00 Ada'],
    ['a C1 control (next line)', 'Bob\u0085x'],
    ['a line separator', 'Bob\u2028x'],
    ['a paragraph separator', 'Bob\u2029x'],
    ['only a zero-width space', '\u200b'],
    ['only a zero-width joiner', '\u200d\u200d'],
    ['only a Hangul filler', '\u3164'],
    ['only blank Braille cells', '\u2800\u2800'],
    ['only a byte order mark and a word joiner', '\ufeff\u2060'],
  ])('refuses a name that is %s', (_label, raw) => {
    expect(() => parseDisplayName(raw)).toThrow(ValidationError);
  });

  it('counts characters (code points), not UTF-16 units', () => {
    expect(parseDisplayName('😀'.repeat(200))).toBe('😀'.repeat(200));
    expect(() => parseDisplayName('😀'.repeat(201))).toThrow(ValidationError);
  });

  it('measures the length after trimming', () => {
    expect(parseDisplayName(`  ${'x'.repeat(200)}  `)).toHaveLength(200);
  });

  it('names the field "name" by default and the given field otherwise', () => {
    const fieldOf = (field?: string) => {
      try {
        parseDisplayName('', field);
      } catch (error) {
        return (error as ValidationError).problems.map((p) => p.field);
      }
      throw new Error('expected a ValidationError');
    };

    expect(fieldOf()).toEqual(['name']);
    expect(fieldOf('ADMIN_NAME')).toEqual(['ADMIN_NAME']);
  });

  it('keys a name for search lower-cased and composed (NFC), so either spelling of an accent finds it', () => {
    expect(nameSearchKey('Jose\u0301 A\u0301lvarez')).toBe('jos\u00e9 \u00e1lvarez');
    expect(nameSearchKey('Jos\u00e9')).toBe(nameSearchKey('JOSE\u0301'));
  });
});
