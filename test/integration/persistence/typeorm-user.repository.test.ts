import { isMysqlFamily } from '../../../src/infrastructure/persistence/typeorm/data-source';
import type { User } from '../../../src/domain/users/user';
import { UserSchema } from '../../../src/infrastructure/persistence/typeorm/records';
import { toRecord as recordOf } from '../../../src/infrastructure/persistence/typeorm/typeorm-user.repository';
import { rebuildUserListBuckets, rebuildUserListIndex } from '../../../src/infrastructure/persistence/typeorm/user-list-buckets';
import { UuidV7IdGenerator } from '../../../src/infrastructure/system/uuid-v7-id-generator';
import { TypeOrmAdapters } from '../../support/typeorm-adapters';
import { joinedUser, pendingUser } from '../../contract/contract-kit';
import { ALL_TARGETS, migratedDatabase } from './database-targets';

const ids = new UuidV7IdGenerator();

/**
 * TypeOrmUserRepository on every database, beyond its contract (test/contract/user-repository.contract.ts, which
 * holds what every user store does): look-ups shared between callers, another process's writes in the
 * next page, deep pages.
 */
describe.each(ALL_TARGETS)('TypeOrmUserRepository on $name', (target) => {
  const db = migratedDatabase(target);

  describe('beyond the contract', () => {
    it('answers concurrent look-ups by id together, each as fresh as its own query', async () => {
      const users = db.adapters.users();
      const joined = [joinedUser(`batch-${ids.next().slice(-8)}`, `batch-${ids.next()}@example.com`), pendingUser(`batch-${ids.next()}@example.com`)];
      for (const user of joined) await users.add(user);
      const asked = [joined[0]!.id, joined[1]!.id, ids.next(), joined[0]!.id];
      const found = await Promise.all(asked.map((id) => users.findById(id)));
      expect(found.map((user) => user?.id ?? null)).toEqual([asked[0], asked[1], null, asked[0]]);
      expect(found[0]!.toSnapshot()).toEqual(joined[0]!.toSnapshot());

      const version = found[0]!.tokenVersion;
      const inFlight = Promise.all(Array.from({ length: 20 }, () => users.findById(joined[0]!.id)));
      await users.incrementTokenVersion(joined[0]!.id);
      const after = await Promise.all(Array.from({ length: 20 }, () => users.findById(joined[0]!.id)));
      expect(after.map((user) => user!.tokenVersion)).toEqual(Array(20).fill(version + 1));
      await inFlight;
    });

    it("lists another process's committed writes at once, and never a transaction's rolled-back ones", async () => {
      // Two processes on one database, each with its own copy of the page index.
      const [one, two] = [new TypeOrmAdapters(db.dataSource), new TypeOrmAdapters(db.dataSource)];
      const total = async (adapters: TypeOrmAdapters) => (await adapters.users().list({ offset: 0, limit: 1 })).total;
      const start = await total(two);
      await one.users().add(pendingUser(`other-${ids.next()}@example.com`));
      expect(await total(two)).toBe(start + 1);
      await one.unitOfWork().run(async ({ users: inTransaction }) => inTransaction.add(pendingUser(`tx-${ids.next()}@example.com`)));
      expect([await total(one), await total(two)]).toEqual([start + 2, start + 2]);
      await expect(
        two.unitOfWork().run(async ({ users: inTransaction }) => {
          await inTransaction.add(pendingUser(`rolled-back-${ids.next()}@example.com`));
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      expect([await total(one), await total(two)]).toEqual([start + 2, start + 2]);
    });

    it('builds the page index from the rows a table already holds (the migration fills it so; a rebuild after a bulk import)', async () => {
      // Rows written around the repository, as a bulk import or an older version would have left them.
      const rows = Array.from({ length: 600 }, (_, i) => recordOf(pendingUser(`bulk${i}-${ids.next().slice(-6)}@example.com`)));
      for (let i = 0; i < rows.length; i += 100) await db.dataSource.getRepository(UserSchema).insert(rows.slice(i, i + 100));
      await rebuildUserListIndex(db.dataSource);
      const users = new TypeOrmAdapters(db.dataSource).users();
      const ordered = ((await db.dataSource.query("SELECT id FROM users WHERE status <> 'deleted' ORDER BY id")) as { id: string }[]).map((row) => row.id);
      for (const offset of [0, 127, 128, 129, 300, ordered.length - 3, ordered.length]) {
        const page = await users.list({ offset, limit: 10 });
        expect({ offset, total: page.total, ids: page.items.map((u) => u.id) }).toEqual({ offset, total: ordered.length, ids: ordered.slice(offset, offset + 10) });
      }
      const buckets = (await db.dataSource.query('SELECT COUNT(*) AS n FROM user_list_buckets')) as { n: number | string }[];
      expect(Number(buckets[0]!.n)).toBe(Math.ceil(ordered.length / 128));
    });

    it('keeps a process’s copy exact when it reads the list in the middle of a rebuild (the rebuild is one transaction)', async () => {
      // SQLite's one connection would read the rebuild's own uncommitted rows: the race is the servers'.
      if (!isMysqlFamily(db.dataSource)) return;
      const users = db.adapters.users();
      await users.list({ offset: 0, limit: 1 });
      const rows = Array.from({ length: 300 }, (_, i) => recordOf(pendingUser(`midrebuild${i}-${ids.next().slice(-6)}@example.com`)));
      for (let i = 0; i < rows.length; i += 100) await db.dataSource.getRepository(UserSchema).insert(rows.slice(i, i + 100));
      // A page read after each of the rebuild's statements, by this process, outside the rebuild's transaction.
      await db.dataSource.transaction((manager) =>
        rebuildUserListBuckets(async (sql, parameters) => {
          const answer = (await manager.query(sql, parameters)) as Record<string, unknown>[];
          await users.list({ offset: 0, limit: 1 });
          return answer;
        }),
      );
      const ordered = ((await db.dataSource.query("SELECT id FROM users WHERE status <> 'deleted' ORDER BY id")) as { id: string }[]).map((row) => row.id);
      for (const offset of [0, 129, ordered.length - 2]) {
        const page = await users.list({ offset, limit: 5 });
        expect({ offset, total: page.total, ids: page.items.map((u) => u.id) }).toEqual({ offset, total: ordered.length, ids: ordered.slice(offset, offset + 5) });
      }
    });

    it('adds a user while another transaction that added one (and wrote its index counts) is still open: no row all writers queue on', async () => {
      const users = db.adapters.users();
      const before = (await users.list({ offset: 0, limit: 1 })).total;
      const [held, free] = [pendingUser(`held-${ids.next()}@example.com`), pendingUser(`free-${ids.next()}@example.com`)];
      const outcome = await db.dataSource.transaction(async (manager) => {
        const inTransaction = db.adapters.users(manager);
        await inTransaction.add(held);
        // The held transaction has taken its slot and counted its user into the last bucket, as at its commit.
        await inTransaction.flushListChanges();
        if (db.dataSource.options.type !== 'mysql' && db.dataSource.options.type !== 'mariadb') return 'sqlite: one writer at a time';
        const timeout = new Promise<string>((resolve) => setTimeout(() => resolve('waited on the held transaction'), 5_000));
        return Promise.race([users.add(free).then(() => 'committed while the other was open'), timeout]);
      });
      if (db.dataSource.options.type !== 'mysql' && db.dataSource.options.type !== 'mariadb') await users.add(free);
      else expect(outcome).toBe('committed while the other was open');
      expect((await users.list({ offset: 0, limit: 1 })).total).toBe(before + 2);
    }, 60_000);

    it('starts a new bucket above every committed id once the last one is full, after the writes, keeping every page exact', async () => {
      const users = db.adapters.users();
      const buckets = async () => Number(((await db.dataSource.query('SELECT COUNT(*) AS n FROM user_list_buckets')) as { n: number | string }[])[0]!.n);
      const tail = db.adapters.services.userListIndex.tail;
      // Whatever the earlier tests left: closed first, so what follows starts from a last bucket below BUCKET_MAX.
      while (await tail.closeIfFull());
      const start = await buckets();
      const added = Array.from({ length: 300 }, (_, i) => pendingUser(`tail${i}-${ids.next().slice(-6)}@example.com`));
      for (let i = 0; i < added.length; i += 50) await Promise.all(added.slice(i, i + 50).map((user) => users.add(user)));
      while (await tail.closeIfFull());
      expect(await buckets()).toBeGreaterThan(start);
      expect(await tail.closeIfFull()).toBe(false);
      const ordered = ((await db.dataSource.query("SELECT id FROM users WHERE status <> 'deleted' ORDER BY id")) as { id: string }[]).map((row) => row.id);
      const [last] = (await db.dataSource.query('SELECT start_id FROM user_list_buckets ORDER BY start_id DESC LIMIT 1')) as { start_id: string }[];
      expect(ordered.filter((id) => id >= last!.start_id).length).toBeLessThan(256);
      for (const offset of [0, ordered.length - 290, ordered.length - 257, ordered.length - 256, ordered.length - 1]) {
        const page = await users.list({ offset, limit: 10 });
        expect({ offset, total: page.total, ids: page.items.map((u) => u.id) }).toEqual({ offset, total: ordered.length, ids: ordered.slice(offset, offset + 10) });
      }
    }, 120_000);

    it('reads deep pages exactly as the ordered table has them', async () => {
      // A process of its own: its first count comes after every write the earlier tests made through others.
      const users = new TypeOrmAdapters(db.dataSource).users();
      const added: User[] = [];
      // Past two full buckets (256 users close one): enough to cross their boundaries, few enough for sql.js in a busy CI.
      for (let i = 0; i < 700; i++) added.push(pendingUser(`deep${i}@example.com`));
      for (let i = 0; i < added.length; i += 100) await Promise.all(added.slice(i, i + 100).map((user) => users.add(user)));
      const ordered = ((await db.dataSource.query('SELECT id FROM users ORDER BY id')) as { id: string }[]).map((row) => row.id);
      const total = ordered.length;
      expect(total).toBeGreaterThanOrEqual(700);
      // Pages on and across bucket boundaries, deep in the list, the last partial page, and one running past the end.
      for (const offset of [255, 256, 300, 513, total - 25, total - 3, total - 1]) {
        const page = await users.list({ offset, limit: 10 });
        expect(page.total).toBe(total);
        expect(page.items.map((u) => u.id)).toEqual(ordered.slice(offset, offset + 10));
      }
      // Different pages asked for at once: each exactly its own.
      const offsets = Array.from({ length: 24 }, (_, i) => (i * 97) % total);
      const together = await Promise.all(offsets.map((offset) => users.list({ offset, limit: 7 })));
      expect(together.map((page) => page.items.map((u) => u.id))).toEqual(offsets.map((offset) => ordered.slice(offset, offset + 7)));
      const pending = ((await db.dataSource.query("SELECT id FROM users WHERE status = 'pending' ORDER BY id")) as { id: string }[]).map((row) => row.id);
      const mixed = await Promise.all(offsets.map((offset, i) => (i % 2 === 0 ? users.list({ offset, limit: 5 }, { status: 'pending' }) : users.list({ offset, limit: 5 }))));
      expect(mixed.map((page) => page.items.map((u) => u.id))).toEqual(offsets.map((offset, i) => (i % 2 === 0 ? pending : ordered).slice(offset, offset + 5)));
      const sample = (await users.list({ offset: total - 1, limit: 10 })).items[0]!;
      const original = added.find((user) => user.id === sample.id)!;
      expect(sample.toSnapshot()).toEqual(original.toSnapshot());
    }, 120_000);

    it('bounds a placed seek by the first bucket start above the page’s last match, and leaves the last bucket open', async () => {
      const index = db.adapters.services.userListIndex;
      await index.refresh();
      const live = ((await db.dataSource.query("SELECT id FROM users WHERE status <> 'deleted' ORDER BY id")) as { id: string }[]).map((row) => row.id);
      // The buckets the copy knows: those with counts (a bucket just closed by the tail has none until a user lands
      // in it), and the first, ''.
      const counted = (await db.dataSource.query('SELECT DISTINCT start_id FROM user_list_slot_counts')) as { start_id: string }[];
      const starts = [...new Set(['', ...counted.map((row) => row.start_id)])].sort();
      expect(starts.length).toBeGreaterThan(2);
      for (const [offset, limit] of [[0, 10], [250, 10], [120, 300], [live.length - 12, 10], [live.length - 1, 10]] as const) {
        const placed = index.place({}, offset, limit);
        const last = live[Math.min(offset + limit, live.length) - 1]!;
        expect({ offset, limit, end: placed.end }).toEqual({ offset, limit, end: starts.find((start) => start > last) ?? null });
        expect(placed.start! <= live[offset]!).toBe(true);
      }
    }, 60_000);

    it('bounds a page after a cursor above its last match, at most one bucket past it, and leaves it open where no bucket follows', async () => {
      const index = db.adapters.services.userListIndex;
      const users = db.adapters.users();
      await index.refresh();
      const live = ((await db.dataSource.query("SELECT id FROM users WHERE status <> 'deleted' ORDER BY id")) as { id: string }[]).map((row) => row.id);
      const counted = (await db.dataSource.query('SELECT DISTINCT start_id FROM user_list_slot_counts')) as { start_id: string }[];
      const starts = [...new Set(['', ...counted.map((row) => row.start_id)])].sort();
      expect(starts.length).toBeGreaterThan(4);
      const bounded: boolean[] = [];
      for (const [position, limit] of [[0, 10], [120, 10], [126, 10], [200, 100], [live.length - 12, 10], [live.length - 2, 10]] as const) {
        const after = live[position]!;
        const { end } = index.bucketOf({}, after, limit);
        const page = live.slice(position + 1, position + 1 + limit);
        const last = page.at(-1) ?? after;
        // Every id of the page below the bound, and the bound no further than the second bucket start past the page.
        expect({ position, limit, held: end === null || last < end }).toEqual({ position, limit, held: true });
        const second = starts.filter((start) => start > last)[1] ?? null;
        if (second !== null) expect({ position, end: end !== null && end <= second }).toEqual({ position, end: true });
        // Where no bucket starts past the page, nothing bounds it.
        if (!starts.some((start) => start > last)) expect({ position, end }).toEqual({ position, end: null });
        bounded.push(end !== null);
        const listed = await users.listAfter({ after, limit });
        expect({ position, ids: listed.items.map((u) => u.id), before: listed.before }).toEqual({ position, ids: page, before: position + 1 });
      }
      // The cursors drawn reach both cases: pages bounded, and pages in the last bucket, left open.
      expect([...new Set(bounded)].sort()).toEqual([false, true]);
    }, 60_000);
  });
});
