import { shortfall } from '../../../bench/shortfall';

describe('shortfall (the "misses by" of a benchmark row)', () => {
  it.each([
    [{ target: '≥ 90 %', ratio: 0.8, figure: 136 }, '10 points'],
    [{ target: '≥ 40 %', ratio: 0.263, figure: 6078 }, '14 points'],
    [{ target: '≤ 3×', ratio: 3.5, figure: 12 }, '0.50×'],
    [{ target: '≥ 5×', ratio: 4.2, figure: 300 }, '0.80×'],
    [{ target: '< 1 s', ratio: null, figure: 1162.7 }, '0.16 s'],
    [{ target: '< 1 s', ratio: null, figure: 1162.7, unit: 'p99 ms' }, '0.16 s'],
    [{ target: '< 60 s', ratio: null, figure: 62.7, unit: 's' }, '2.70 s'],
    [{ target: '< 250 ms', ratio: null, figure: 300.04 }, '50.0 ms'],
    [{ target: '≤ 150 MB', ratio: null, figure: 175.2 }, '25 MB'],
  ])('%j misses by %s', (row, expected) => {
    expect(shortfall(row)).toBe(expected);
  });

  it('says nothing it cannot compute', () => {
    expect(shortfall({ target: '≥ 90 %', ratio: null, figure: 1 })).toBeNull();
    expect(shortfall({ target: 'fast', ratio: 0.5, figure: 1 })).toBeNull();
  });
});
