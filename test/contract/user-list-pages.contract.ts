import type { UserListFilter, UserRepository } from '../../src/application/ports/user-repository.port';
import type { Role } from '../../src/domain/roles/role';
import { User, type UserStatus } from '../../src/domain/users/user';
import { SEEDED_ROLES } from '../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { type ContractOptions, contractIt, type MakeStores, member, newId, unique } from './contract-kit';

const admin: Role = { id: SEEDED_ROLES.admin, name: 'admin', permissions: [] };

/** More users than a bucket of the page index holds twice over (BUCKET_MAX 256), so pages cross bucket boundaries. */
const MANY = 700;

function person(i: number, status: UserStatus = i % 5 === 0 ? 'active' : i % 7 === 0 ? 'deactivated' : 'pending'): User {
  const at = new Date('2026-02-01T00:00:00.007Z');
  const joined = status !== 'pending';
  return User.restore({
    id: newId(),
    email: `${unique(`page${i}`)}@example.com`,
    name: `Page Person ${i}`,
    username: joined ? unique(`page${i}`) : undefined,
    passwordHash: joined ? 'h' : undefined,
    roleId: (i % 3 === 0 ? admin : member).id,
    invitedAt: at,
    joinedAt: joined ? at : undefined,
    tokenVersion: 0,
    status,
    version: 1,
  });
}

/** `user` as stored after a change of role and/or status, at its version (saved with `update`). */
function changed(user: User, change: { roleId?: string; status?: UserStatus }): User {
  const snapshot = user.toSnapshot();
  const status = change.status ?? snapshot.status;
  const joined = status !== 'pending';
  return User.restore({
    ...snapshot,
    ...change,
    username: joined ? (snapshot.username ?? unique('now-joined')) : snapshot.username,
    passwordHash: joined ? (snapshot.passwordHash ?? 'h') : snapshot.passwordHash,
    joinedAt: joined ? (snapshot.joinedAt ?? snapshot.invitedAt) : snapshot.joinedAt,
  });
}

const FILTERS: UserListFilter[] = [{}, { roleId: admin.id }, { roleId: member.id }, { status: 'pending' }, { status: 'deactivated' }, { roleId: admin.id, status: 'active' }];

/**
 * The user list's pages at any depth (issue #26), whatever the store does to find them (the TypeORM adapter seeks
 * from per-bucket counts): every page of every filter is exactly the filter's matches in id order, cut at
 * `offset`, with their exact total; the cursor form walks the same sequence. Checked after adds, erasures,
 * deletes, role and status changes, and users added at once through two repositories (two replicas).
 */
export function describeUserListPagesContract(name: string, makeSubject: MakeStores<'users' | 'unitOfWork' | 'replicaUsers'>, options: ContractOptions = {}): void {
  const test = contractIt(options);

  describe(`${name} pages the user list at any depth`, () => {
    let users: UserRepository;
    let stores: Awaited<ReturnType<typeof makeSubject>>;
    let stored: User[];
    /** Users no list shows any more: erased, or deleted outright. */
    let removed: Set<string>;

    beforeEach(async () => {
      stores = await makeSubject();
      ({ users } = stores);
      stored = Array.from({ length: MANY }, (_, i) => person(i));
      removed = new Set();
      // In order of id, in a few concurrent waves: each add is its own transaction.
      for (let i = 0; i < stored.length; i += 50) await Promise.all(stored.slice(i, i + 50).map((user) => users.add(user)));
    }, 120_000);

    /** What every page must show: the live users the filter matches, in id order. */
    const expected = (filter: UserListFilter): string[] =>
      stored
        .filter((u) => !removed.has(u.id))
        .filter((u) => (filter.roleId === undefined || u.roleId === filter.roleId) && (filter.status === undefined || u.status === filter.status))
        .map((u) => u.id)
        .sort();

    /** Every page of every filter, at two page sizes (one that never lines up with a bucket), against `expected`. */
    const everyPageHolds = async (repository: UserRepository = users) => {
      for (const filter of FILTERS) {
        const want = expected(filter);
        for (const size of [37, 100]) {
          const seen: string[] = [];
          for (let offset = 0; offset <= want.length; offset += size) {
            const page = await repository.list({ offset, limit: size }, filter);
            expect({ filter, offset, total: page.total }).toEqual({ filter, offset, total: want.length });
            seen.push(...page.items.map((u) => u.id));
          }
          expect({ filter, size, seen }).toEqual({ filter, size, seen: want });
        }
        // A few single pages from the middle, alone (not walked in order).
        for (const offset of [1, Math.floor(want.length / 2), want.length - 1, want.length, want.length + 5]) {
          const page = await repository.list({ offset, limit: 10 }, filter);
          expect({ filter, offset, ids: page.items.map((u) => u.id) }).toEqual({ filter, offset, ids: want.slice(offset, offset + 10) });
        }
      }
    };

    test('shows every user once, in id order, on every page of every filter, with the exact total', async () => {
      await everyPageHolds();
    });

    test('answers pages of every filter, depth and size asked for at once as it answers each alone', async () => {
      // Asked together, the pages are read together (the TypeORM adapter's seeks share statements): each must
      // still be its own filter's matches from its own offset, as many as its own limit.
      const asked = FILTERS.flatMap((filter) => {
        const want = expected(filter);
        return [0, 3, 37, 150, 299, want.length - 2, want.length + 1].flatMap((offset) =>
          [10, 37].map((limit) => ({ filter, offset, limit, total: want.length, ids: want.slice(offset, offset + limit) })),
        );
      });
      const pages = await Promise.all(asked.map(({ filter, offset, limit }) => users.list({ offset, limit }, filter)));
      expect(pages.map((page, i) => ({ ...asked[i]!, total: page.total, ids: page.items.map((u) => u.id) }))).toEqual(asked);
    });

    test('stays exact after erasures, deletes of pending users, role changes and status changes across the whole list', async () => {
      for (let i = 4; i < stored.length; i += 9) {
        const user = (await users.findById(stored[i]!.id))!;
        if (i % 2 === 0 && user.status === 'pending') await users.delete(user);
        else {
          user.delete({ by: newId(), now: new Date('2026-04-01T08:00:00.001Z'), newId });
          await users.erase(user);
        }
        removed.add(user.id);
      }
      for (let i = 2; i < stored.length; i += 11) {
        const user = await users.findById(stored[i]!.id);
        if (!user) continue;
        const next = changed(user, i % 2 === 0 ? { roleId: user.roleId === admin.id ? member.id : admin.id } : { status: user.status === 'deactivated' ? 'active' : 'deactivated' });
        await users.update(next);
        stored[i] = next;
      }
      await everyPageHolds();
    }, 120_000);

    test('stays exact when a unit of work changes users and when one rolls back', async () => {
      const { unitOfWork } = stores;
      const added = person(MANY + 1);
      await unitOfWork.run(async ({ users: inTransaction }) => {
        await inTransaction.add(added);
        const moved = changed((await inTransaction.findById(stored[10]!.id))!, { roleId: admin.id, status: 'deactivated' });
        await inTransaction.update(moved);
        stored[10] = moved;
      });
      stored.push(added);
      await expect(
        unitOfWork.run(async ({ users: inTransaction }) => {
          await inTransaction.add(person(MANY + 2));
          await inTransaction.update(changed((await inTransaction.findById(stored[20]!.id))!, { status: 'deactivated' }));
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      await everyPageHolds();
    }, 120_000);

    test('stays exact with users added at once through two repositories (two replicas), each listing the other\'s', async () => {
      const replica = stores.replicaUsers();
      await everyPageHolds(replica); // the replica's own view, read before the writes
      const more = Array.from({ length: 300 }, (_, i) => person(MANY + 10 + i));
      await Promise.all(more.map((user, i) => (i % 2 === 0 ? users : replica).add(user)));
      stored.push(...more);
      await everyPageHolds(users);
      await everyPageHolds(replica);
    }, 120_000);

    test('walks by cursor through every match once, stable while users are added during the walk', async () => {
      for (const filter of [{}, { roleId: admin.id }, { status: 'pending' as const }]) {
        const want = expected(filter);
        const seen: string[] = [];
        let after = '';
        for (let step = 0; ; step++) {
          const page = await users.listAfter({ after, limit: 50 }, filter);
          expect({ total: page.total, before: page.before }).toEqual({ total: expected(filter).length, before: seen.length });
          if (page.items.length === 0) break;
          seen.push(...page.items.map((u) => u.id));
          after = page.items.at(-1)!.id;
          if (step === 2) {
            // Added mid-walk: after the cursor (they come later in the walk); none shifts what was walked.
            const late = [person(5000 + step, 'pending'), person(5003 + step, 'pending')];
            for (const user of late) await users.add(user);
            stored.push(...late);
          }
        }
        const now = expected(filter);
        expect(seen).toEqual(now);
        expect(want.every((id) => seen.includes(id))).toBe(true);
      }
    }, 120_000);

    test('places a cursor that names no user, or an erased one, where its id falls', async () => {
      const ids = expected({});
      const erased = (await users.findById(ids[300]!))!;
      erased.delete({ by: newId(), now: new Date('2026-04-01T08:00:00.001Z'), newId });
      await users.erase(erased);
      const page = await users.listAfter({ after: erased.id, limit: 5 });
      expect([page.before, page.total, page.items.map((u) => u.id)]).toEqual([300, ids.length - 1, ids.slice(301, 306)]);
      const beyond = await users.listAfter({ after: 'ffffffff-ffff-7fff-bfff-ffffffffffff', limit: 5 });
      expect([beyond.before, beyond.total, beyond.items]).toEqual([ids.length - 1, ids.length - 1, []]);
      const first = await users.listAfter({ after: '00000000-0000-0000-0000-000000000000', limit: 2 }, { emailKey: 'nobody@example.com' });
      expect([first.before, first.total, first.items]).toEqual([0, 0, []]);
    });
  });
}
