import type { User } from '../../../src/domain/users/user';
import { UserSchema } from '../../../src/infrastructure/persistence/typeorm/records';
import { toRecord as recordOf } from '../../../src/infrastructure/persistence/typeorm/typeorm-user.repository';
import { UuidV7IdGenerator } from '../../../src/infrastructure/system/uuid-v7-id-generator';
import { AdjustableClock } from '../../support/adjustable-clock';
import { TypeOrmAdapters } from '../../support/typeorm-adapters';
import { joinedUser, pendingUser } from '../../contract/contract-kit';
import { ALL_TARGETS, migratedDatabase } from './database-targets';

const ids = new UuidV7IdGenerator();

/**
 * TypeOrmUserRepository on every database, beyond its contract (test/contract/user-repository.contract.ts, which
 * holds what every user store does): look-ups shared between callers, the cached total against another process's
 * rows, deep pages read from the nearer end.
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

    it("moves the cached total with this process's own committed writes, without counting again", async () => {
      // A process of its own whose clock stands still: the count taken below never ages, however slow the machine.
      const clock = new AdjustableClock();
      clock.freeze();
      const replica = new TypeOrmAdapters(db.dataSource, { clock });
      const users = replica.users();
      const unitOfWork = replica.unitOfWork();
      const total = async () => (await users.list({ offset: 0, limit: 1 })).total;
      const start = await total(); // counted now, and fresh until the clock moves
      // Another process's write (straight to the table): not in the cached total until a recount.
      await db.dataSource.getRepository(UserSchema).insert({ ...recordOf(pendingUser(`other-${ids.next()}@example.com`)) });
      expect(await total()).toBe(start);

      const own = pendingUser(`own-${ids.next()}@example.com`);
      await users.add(own);
      expect(await total()).toBe(start + 1); // a recount would also have found the other process's row
      await unitOfWork.run(async ({ users: inTransaction }) => inTransaction.add(pendingUser(`tx-${ids.next()}@example.com`)));
      expect(await total()).toBe(start + 2);
      await expect(
        unitOfWork.run(async ({ users: inTransaction }) => {
          await inTransaction.add(pendingUser(`rolled-back-${ids.next()}@example.com`));
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      expect(await total()).toBe(start + 2);
      await users.delete(own);
      const afterDelete = await total();
      // Drivers that report the rows a DELETE removed move the total; others drop it and count again.
      expect([start + 1, start + 2]).toContain(afterDelete);
      replica.services.userTotalCache.invalidate();
      expect(await total()).toBe(start + 2); // the exact count: the other process's row and one of ours
    });

    it('reads deep pages (ids first, from the nearer end) exactly as the ordered table has them', async () => {
      // A process of its own: its first count comes after every write the earlier tests made through others.
      const users = new TypeOrmAdapters(db.dataSource).users();
      const added: User[] = [];
      for (let i = 0; i < 1300; i++) added.push(pendingUser(`deep${i}@example.com`));
      for (let i = 0; i < added.length; i += 100) await Promise.all(added.slice(i, i + 100).map((user) => users.add(user)));
      const ordered = ((await db.dataSource.query('SELECT id FROM users ORDER BY id')) as { id: string }[]).map((row) => row.id);
      const total = ordered.length;
      expect(total).toBeGreaterThan(1300);
      // Past the direct-read offset: one page walked forwards, one nearer the end (walked backwards),
      // the last partial page, and a page running past the end.
      for (const offset of [1000, 1007, total - 25, total - 3, total - 1]) {
        const page = await users.list({ offset, limit: 10 });
        expect(page.total).toBe(total);
        expect(page.items.map((u) => u.id)).toEqual(ordered.slice(offset, offset + 10));
      }
      const sample = (await users.list({ offset: total - 1, limit: 10 })).items[0]!;
      const original = added.find((user) => user.id === sample.id)!;
      expect(sample.toSnapshot()).toEqual(original.toSnapshot());
    });
  });
});
