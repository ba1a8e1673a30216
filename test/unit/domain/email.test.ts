import { ValidationError } from '../../../src/domain/shared/domain-error';
import { Email } from '../../../src/domain/users/email';

const local64 = 'l'.repeat(64);
// 64 + 1 + 189 = 254 characters, every label within 63.
const domain189 = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(57)}.com`;

describe('Email', () => {
  it.each([
    'ada@example.com',
    'first.last+tag@sub.example.co.uk',
    "o'brien@example.ie",
    'x@a-b.io',
    'user@bücher.de',
    'UPPER@EXAMPLE.COM',
    `${local64}@example.com`,
    `${local64}@${domain189}`,
  ])('accepts %s', (raw) => {
    expect(Email.parse(raw).value).toBe(raw);
  });

  it('counts the local part in UTF-8 octets and each domain label in its ASCII (DNS) form', () => {
    // 32 × é is 64 octets; 33 is 66. A label of 63 letters is fine; one whose xn-- form passes 63 octets is not.
    expect(() => Email.parse(`${'\u00e9'.repeat(32)}@example.com`)).not.toThrow();
    expect(() => Email.parse(`${'\u00e9'.repeat(33)}@example.com`)).toThrow(ValidationError);
    expect(() => Email.parse(`x@${'b'.repeat(63)}.com`)).not.toThrow();
    expect(() => Email.parse(`x@${'\u00fc'.repeat(63)}.de`)).toThrow(ValidationError);
    expect(() => Email.parse(`x@${'\u00fc'.repeat(20)}.de`)).not.toThrow();
  });

  it('accepts exactly 254 characters and refuses 255', () => {
    const at254 = `${local64}@${domain189}`;
    expect(at254).toHaveLength(254);
    expect(() => Email.parse(at254)).not.toThrow();
    expect(() => Email.parse(`${local64}@a${domain189}`)).toThrow(ValidationError);
  });

  it.each([
    ['empty', ''],
    ['blank', '   '],
    ['no @', 'ada.example.com'],
    ['nothing before @', '@example.com'],
    ['nothing after @', 'ada@'],
    ['a domain without a dot', 'ada@localhost'],
    ['two @', 'ada@home@example.com'],
    ['a space inside', 'ada lovelace@example.com'],
    ['a blank Braille cell inside, which shows as a space', 'ada\u2800lovelace@example.com'],
    ['a blank Braille cell alone before @', '\u2800@example.com'],
    ['a space in the domain', 'ada@exa mple.com'],
    ['a quoted local part', '"ada"@example.com'],
    ['a leading dot', '.ada@example.com'],
    ['a trailing dot in the local part', 'ada.@example.com'],
    ['two dots in a row', 'ada..lovelace@example.com'],
    ['a label starting with a hyphen', 'ada@-example.com'],
    ['a label ending with a hyphen', 'ada@example-.com'],
    ['an empty label', 'ada@example..com'],
    ['a trailing dot in the domain', 'ada@example.com.'],
    ['a label of 64 characters', `ada@${'d'.repeat(64)}.com`],
    ['a local part of 65 characters', `${'l'.repeat(65)}@example.com`],
    ['a control character', 'ada\u0007@example.com'],
    ['angle brackets', '<ada@example.com>'],
  ])('refuses an address with %s', (_label, raw) => {
    expect(() => Email.parse(raw)).toThrow(ValidationError);
  });

  it('names the field "email" by default and the given field otherwise', () => {
    const problems = (raw: string, field?: string) => {
      try {
        Email.parse(raw, field);
      } catch (error) {
        return (error as ValidationError).problems;
      }
      throw new Error('expected a ValidationError');
    };

    expect(problems('nope')).toEqual([{ field: 'email', message: expect.stringContaining('254') }]);
    expect(problems('nope', 'ADMIN_EMAIL').map((p) => p.field)).toEqual(['ADMIN_EMAIL']);
  });

  it('carries the stable code VALIDATION_FAILED', () => {
    expect(() => Email.parse('nope')).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED' }));
  });

  it('keeps the address as given (trimmed) and keys it case-insensitively', () => {
    const email = Email.parse('  Ada.Lovelace@Example.COM ');

    expect(email.value).toBe('Ada.Lovelace@Example.COM');
    expect(email.normalized).toBe('ada.lovelace@example.com');
    expect(Email.parse('ADA.LOVELACE@example.com').normalized).toBe(email.normalized);
  });

  it('normalizes a raw string the same way parse does', () => {
    expect(Email.normalize(' MiXeD@Case.Org ')).toBe('mixed@case.org');
  });

  describe('look-alike spellings (issue #22)', () => {
    const precomposed = 'jos\u00e9@example.com';
    const decomposed = 'jose\u0301@example.com';

    it('keys the precomposed and the decomposed accent alike, and keeps the composed form (NFC)', () => {
      expect(precomposed).not.toBe(decomposed);
      expect(Email.parse(decomposed).normalized).toBe(Email.parse(precomposed).normalized);
      expect(Email.parse(decomposed).value).toBe(precomposed);
      expect(Email.parse('JOSE\u0301@Example.com').normalized).toBe(precomposed);
      expect(Email.normalize(` ${decomposed} `)).toBe(precomposed);
    });

    it('accepts a decomposed accent in the domain, which composes into a letter', () => {
      expect(Email.parse('ada@bu\u0308cher.de').normalized).toBe(Email.parse('ada@bücher.de').normalized);
    });

    it.each([
      ['full-width letters', 'ada@\uff45\uff58\uff41\uff4d\uff50\uff4c\uff45.com', 'ada@example.com'],
      ['full-width capitals', 'ada@\uff25\uff38\uff21\uff2d\uff30\uff2c\uff25.com', 'ada@example.com'],
      ['a label in its ASCII form', 'ada@xn--bcher-kva.de', 'ada@b\u00fccher.de'],
      ['a label in its ASCII form, in capitals', 'ada@XN--BCHER-KVA.DE', 'ada@B\u00dcCHER.de'],
      ['a ligature', 'ada@\ufb01sh.com', 'ada@fish.com'],
    ])('keys a domain written with %s as DNS reads it: one mailbox, one key', (_label, spelling, other) => {
      expect(Email.parse(spelling).normalized).toBe(Email.parse(other).normalized);
      expect(Email.normalize(` ${spelling} `)).toBe(Email.parse(other).normalized);
      // Unlike the domain, the local part is the mail server's to read: only case and composition are folded.
      expect(Email.parse(spelling.replace('ada', '\uff41da')).normalized).not.toBe(Email.parse(other).normalized);
    });

    it('keys an internationalised domain by its ASCII form and keeps the address as given', () => {
      const email = Email.parse('Ada@B\u00fccher.de');
      expect(email.value).toBe('Ada@B\u00fccher.de');
      expect(email.normalized).toBe('ada@xn--bcher-kva.de');
    });

    it.each([
      ['full-width digits read as an IPv4 address', 'ada@\uff11.\uff12'],
      ['an internationalised domain ending in a number', 'ada@b\u00fccher.123'],
      ['a numeric top-level label (an IPv4 address)', 'ada@127.0.0.1'],
      ['a hexadecimal IPv4 spelling', 'ada@0x7f.0.0.1'],
      ['full-width digits of an IPv4 address, as many labels', 'ada@\uff11\uff12\uff17.\uff10.\uff10.\uff11'],
      ['a numeric top-level label after a name', 'ada@example.123'],
    ])('refuses a domain with %s', (_label, raw) => {
      expect(() => Email.parse(raw)).toThrow(ValidationError);
      // Its key is still defined (a look-up by any text answers), the text lower-cased and composed.
      expect(Email.normalize(raw)).toBe(raw.toLowerCase());
    });

    it.each([
      ['a zero-width space', 'bob\u200b@example.com'],
      ['a zero-width non-joiner', 'bo\u200cb@example.com'],
      ['a zero-width joiner', 'bo\u200db@example.com'],
      ['a word joiner', 'bob\u2060@example.com'],
      ['a byte order mark inside', 'bo\ufeffb@example.com'],
      ['a right-to-left override', 'bob\u202e@example.com'],
      ['a left-to-right mark', 'bob\u200e@example.com'],
      ['a first-strong isolate', 'bob\u2068@example.com'],
      ['a soft hyphen', 'bo\u00adb@example.com'],
      ['a combining grapheme joiner', 'bo\u034fb@example.com'],
      ['a Hangul filler', 'bob\u3164@example.com'],
      ['a variation selector', 'bob\ufe0f@example.com'],
      ['a tag character', 'bob\u{e0041}@example.com'],
      ['a private-use character', 'bob\ue000@example.com'],
      ['a lone surrogate', 'bob\ud800@example.com'],
      ['an invisible character in the domain', 'bob@exam\u200bple.com'],
      ['a C1 control character', 'bob\u0085x@example.com'],
    ])('refuses %s with a problem that says so', (_label, raw) => {
      expect(() => Email.parse(raw)).toThrow(
        expect.objectContaining({
          code: 'VALIDATION_FAILED',
          problems: [{ field: 'email', message: 'must not contain invisible or control characters (such as a zero-width space)' }],
        }),
      );
    });

    it('refuses an address whose key would be longer than 254 characters', () => {
      // "İ" lower-cases to two code units (i + combining dot above), which compose no further.
      const raw = `${'\u0130'.repeat(64)}@${domain189}`;
      expect(raw).toHaveLength(254);
      expect(() => Email.parse(raw)).toThrow(ValidationError);
    });
  });
});
