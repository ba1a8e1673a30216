import { ValidationError } from '../../../src/domain/shared/domain-error';
import { parseDescription } from '../../../src/domain/service-accounts/service-account-name';

describe('parseDescription', () => {
  it('keeps text up to 500 characters, trimmed; blank or absent is none', () => {
    expect(parseDescription('  Nightly 📊 report ')).toBe('Nightly 📊 report');
    expect(parseDescription('😀'.repeat(500))).toBe('😀'.repeat(500));
    expect([parseDescription('  '), parseDescription(null), parseDescription(undefined)]).toEqual([undefined, undefined, undefined]);
  });

  it.each([
    ['501 characters', 'x'.repeat(501)],
    ['half a surrogate pair (high)', 'report \ud83d'],
    ['half a surrogate pair (low)', '\ude00'],
  ])('refuses %s, naming the field', (_label, raw) => {
    expect(() => parseDescription(raw)).toThrow(ValidationError);
    expect(() => parseDescription(raw)).toThrow(expect.objectContaining({ problems: [expect.objectContaining({ field: 'description' })] }));
  });
});
