import { instantOf, looksLikeId, userNamed } from '../../../console/src/logic/audit-filters';

describe('the audit screen’s filters as typed', () => {
  it('takes a day, a time in UTC, or a time with its zone, and answers the instant in UTC', () => {
    expect(instantOf('2026-01-31')).toEqual({ iso: '2026-01-31T00:00:00.000Z' });
    expect(instantOf(' 2026-01-31 09:30 ')).toEqual({ iso: '2026-01-31T09:30:00.000Z' });
    expect(instantOf('2026-01-31T09:30:15.5')).toEqual({ iso: '2026-01-31T09:30:15.500Z' });
    expect(instantOf('2026-01-31T09:30+02:00')).toEqual({ iso: '2026-01-31T07:30:00.000Z' });
    expect(instantOf('2026-01-31T09:30:00Z')).toEqual({ iso: '2026-01-31T09:30:00.000Z' });
  });

  it('says in words what is not a date and time, a day the calendar does not have', () => {
    for (const typed of ['yesterday', '31/01/2026', '2026-02-30', '2026-13-01', '2026-01-31T25:00', '2026-01-31T09:30+2', '']) {
      expect({ typed, answer: instantOf(typed) }).toEqual({ typed, answer: { error: expect.stringContaining('Write a day, 2026-01-31') } });
    }
  });

  it('tells an id from a name', () => {
    expect(looksLikeId('0192f3c4-5d6e-7f80-9a1b-2c3d4e5f6a7b')).toBe(true);
    expect(looksLikeId('ada')).toBe(false);
    expect(looksLikeId('ada@example.com')).toBe(false);
  });

  it('picks the user whose username or e-mail is what was typed, else the only one found, else says why', () => {
    const ada = { _id: 'a', username: 'ada', email: 'ada@example.com' };
    const adam = { _id: 'b', username: 'adam', email: 'adam@example.com' };
    expect(userNamed('Ada', [ada, adam])).toEqual({ id: 'a' });
    expect(userNamed('adam@example.com', [adam])).toEqual({ id: 'b' });
    expect(userNamed('ad', [adam])).toEqual({ id: 'b' });
    expect(userNamed('ad', [ada, adam])).toEqual({ error: expect.stringContaining('Several users match “ad”') });
    expect(userNamed('zed', [])).toEqual({ error: expect.stringContaining('No user’s username or e-mail starts with “zed”') });
  });
});
