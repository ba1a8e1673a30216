import { parseDurationSeconds } from '../../../src/infrastructure/config/duration';

describe('parseDurationSeconds', () => {
  it.each([
    ['15m', 900],
    ['7d', 604_800],
    ['90s', 90],
    ['12h', 43_200],
    ['1500ms', 1.5],
    ['45', 45],
    ['0', 0],
    ['0s', 0],
    ['1.5h', 5400],
    [' 15m ', 900],
    ['10 s', 10],
  ])('reads %j as %d seconds', (raw, seconds) => {
    expect(parseDurationSeconds(raw)).toBe(seconds);
  });

  it.each(['', '   ', 'm', 'abc', '15x', '-5m', '+5m', '15 minutes', '1e3s', '15m30s', '.5h', 'NaN', 'Infinity'])(
    'refuses %j',
    (raw) => {
      expect(parseDurationSeconds(raw)).toBeNull();
    },
  );

  it('refuses a number too large to be finite', () => {
    expect(parseDurationSeconds(`${'9'.repeat(400)}d`)).toBeNull();
  });
});
