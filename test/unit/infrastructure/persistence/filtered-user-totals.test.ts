import { FilteredUserTotals } from '../../../../src/infrastructure/persistence/typeorm/filtered-user-totals';
import { AdjustableClock } from '../../../support/adjustable-clock';

const ADMIN = 'role-admin';
const MEMBER = 'role-member';

/** A count that answers `value` and says how often it ran. */
function counter(value: number) {
  const count = jest.fn(async () => value);
  return count;
}

/** A count that answers only when the test says so. */
function pendingCount() {
  let resolve!: (n: number) => void;
  const promise = new Promise<number>((r) => (resolve = r));
  return { count: jest.fn(() => promise), resolve };
}

describe('FilteredUserTotals', () => {
  let clock: AdjustableClock;
  let totals: FilteredUserTotals;

  beforeEach(() => {
    clock = new AdjustableClock();
    clock.freeze();
    totals = new FilteredUserTotals({ clock, freshnessMs: 5000, maxKeys: 4 });
  });

  it('counts a key once within the freshness, each key on its own', async () => {
    const admins = counter(10);
    const pending = counter(900);
    expect(await totals.get({ roleId: ADMIN }, admins)).toBe(10);
    expect(await totals.get({ roleId: ADMIN }, admins)).toBe(10);
    expect(await totals.get({ status: 'pending' }, pending)).toBe(900);
    expect(await totals.get({ roleId: ADMIN, status: 'pending' }, counter(3))).toBe(3);
    clock.advance(4999);
    expect(await totals.get({ roleId: ADMIN }, admins)).toBe(10);
    expect(admins).toHaveBeenCalledTimes(1);
    expect(pending).toHaveBeenCalledTimes(1);
  });

  it('past the freshness serves the last count while one recount runs, then the new count', async () => {
    await totals.get({ status: 'deactivated' }, counter(20));
    clock.advance(5000);
    const recount = pendingCount();
    expect(await totals.get({ status: 'deactivated' }, recount.count)).toBe(20);
    expect(await totals.get({ status: 'deactivated' }, recount.count)).toBe(20);
    expect(recount.count).toHaveBeenCalledTimes(1);
    recount.resolve(21);
    await Promise.resolve();
    await Promise.resolve();
    expect(await totals.get({ status: 'deactivated' }, counter(99))).toBe(21);
  });

  it('a user added moves the role, role-and-pending and pending totals at once, and no other', async () => {
    await totals.get({ roleId: ADMIN }, counter(10));
    await totals.get({ roleId: ADMIN, status: 'pending' }, counter(4));
    await totals.get({ status: 'pending' }, counter(900));
    await totals.get({ roleId: MEMBER }, counter(990));
    totals.added(ADMIN, 1);
    const never = counter(-1);
    expect(await totals.get({ roleId: ADMIN }, never)).toBe(11);
    expect(await totals.get({ roleId: ADMIN, status: 'pending' }, never)).toBe(5);
    expect(await totals.get({ status: 'pending' }, never)).toBe(901);
    expect(await totals.get({ roleId: MEMBER }, never)).toBe(990);
    expect(never).not.toHaveBeenCalled();
  });

  it('any other committed write drops every total: the next list counts again, exactly', async () => {
    await totals.get({ status: 'deactivated' }, counter(20));
    await totals.get({ roleId: ADMIN, status: 'active' }, counter(2));
    totals.committed({ added: [], changed: true });
    expect(await totals.get({ status: 'deactivated' }, counter(21))).toBe(21);
    expect(await totals.get({ roleId: ADMIN, status: 'active' }, counter(1))).toBe(1);
  });

  it('a transaction that only added users adjusts, one per user', async () => {
    await totals.get({ status: 'pending' }, counter(900));
    totals.committed({ added: [ADMIN, MEMBER], changed: false });
    expect(await totals.get({ status: 'pending' }, counter(-1))).toBe(902);
  });

  it('a count in flight when a write commits does not store what it read', async () => {
    const before = pendingCount();
    const first = totals.get({ status: 'active' }, before.count);
    totals.changed();
    const after = counter(7);
    const second = totals.get({ status: 'active' }, after);
    before.resolve(6);
    expect(await first).toBe(6);
    expect(await second).toBe(7);
    expect(await totals.get({ status: 'active' }, counter(-1))).toBe(7);
  });

  it('an addition while a recount is in flight makes the next list wait for an exact count', async () => {
    await totals.get({ status: 'pending' }, counter(900));
    clock.advance(6000);
    const recount = pendingCount();
    expect(await totals.get({ status: 'pending' }, recount.count)).toBe(900);
    totals.added(MEMBER, 1);
    const exact = counter(901);
    expect(await totals.get({ status: 'pending' }, exact)).toBe(901);
    recount.resolve(900);
    await Promise.resolve();
    expect(await totals.get({ status: 'pending' }, counter(-1))).toBe(901);
  });

  it('keeps at most maxKeys totals, the least recently used dropped first', async () => {
    for (const status of ['pending', 'active', 'deactivated']) await totals.get({ status }, counter(1));
    await totals.get({ roleId: ADMIN }, counter(1));
    await totals.get({ status: 'pending' }, counter(-1)); // used again: kept
    await totals.get({ roleId: MEMBER }, counter(1)); // a fifth key: 'active' goes
    const recounted = counter(2);
    expect(await totals.get({ status: 'active' }, recounted)).toBe(2);
    expect(await totals.get({ status: 'pending' }, counter(-1))).toBe(1);
  });
});
