import { isoTimestamp } from '../../../src/domain/shared/iso-timestamp';

describe('isoTimestamp', () => {
  it.each([
    ['the epoch', 0],
    ['a single-digit month, day, hour, minute, second and millisecond', Date.UTC(2026, 0, 2, 3, 4, 5, 6)],
    ['two-digit milliseconds', Date.UTC(2026, 10, 28, 23, 59, 59, 42)],
    ['the last millisecond of a year', Date.UTC(2025, 11, 31, 23, 59, 59, 999)],
    ['a leap day', Date.UTC(2024, 1, 29, 12, 0, 0, 0)],
    ['the first year of four digits', Date.UTC(1000, 0, 1)],
    ['the last millisecond of year 9999', Date.UTC(9999, 11, 31, 23, 59, 59, 999)],
    ['a year of three digits', Date.UTC(999, 11, 31, 23, 59, 59, 999)],
    ['a year of five digits', Date.UTC(10000, 0, 1)],
    ['a year before 0', Date.UTC(-1, 5, 15)],
  ])('writes %s as toISOString does', (_name, time) => {
    const date = new Date(time);
    expect(isoTimestamp(date)).toBe(date.toISOString());
  });

  it('agrees with toISOString on 10 000 instants drawn from 1970 to 2100', () => {
    const end = Date.UTC(2100, 0, 1);
    for (let i = 0; i < 10_000; i++) {
      const date = new Date(Math.floor(Math.random() * end));
      expect(isoTimestamp(date)).toBe(date.toISOString());
    }
  });

  it('refuses an invalid date as toISOString does', () => {
    expect(() => isoTimestamp(new Date(Number.NaN))).toThrow(RangeError);
  });
});
