import { UserListSlots1765700000000 } from '../../../src/infrastructure/persistence/migrations/1765700000000-user-list-slots';
import { pendingUser } from '../../contract/contract-kit';
import { ALL_TARGETS, migratedDatabase } from './database-targets';

/**
 * The slotted page index (#26, migration 1765700000000): down gives the previous version's tables, the slots summed
 * into one count per bucket and key; up again rebuilds the slotted counts from the users table. Pages stay exact.
 */
describe.each(ALL_TARGETS)('the user-list slots migration on $name', (target) => {
  const db = migratedDatabase(target);

  it('goes down to one count per bucket and key and up again, every page exact after', async () => {
    const users = db.adapters.users();
    for (let i = 0; i < 40; i += 10) await Promise.all(Array.from({ length: 10 }, (_, j) => users.add(pendingUser(`slots${i + j}@example.com`))));
    const ordered = ((await db.dataSource.query("SELECT id FROM users WHERE status <> 'deleted' ORDER BY id")) as { id: string }[]).map((row) => row.id);
    const total = async (sql: string) => Number(((await db.dataSource.query(sql)) as { n: number | string }[])[0]!.n);
    expect((await users.list({ offset: 0, limit: 1 })).total).toBe(ordered.length);
    const runner = db.dataSource.createQueryRunner();
    try {
      const migration = new UserListSlots1765700000000();
      await migration.down(runner);
      expect(await total('SELECT COUNT(*) AS n FROM user_list_revision')).toBe(1);
      expect(await total("SELECT COALESCE(SUM(n), 0) AS n FROM user_list_bucket_counts WHERE status <> 'deleted'")).toBe(ordered.length);
      await migration.up(runner);
      expect(await total('SELECT COUNT(*) AS n FROM user_list_revision')).toBe(16);
      expect(await total("SELECT COALESCE(SUM(n), 0) AS n FROM user_list_slot_counts WHERE status <> 'deleted'")).toBe(ordered.length);
    } finally {
      await runner.release();
    }
    // A process that read the index before the round trip reads it whole again (the rebuild moved every slot on).
    for (const offset of [0, 17, ordered.length - 1]) {
      const page = await users.list({ offset, limit: 5 });
      expect({ total: page.total, ids: page.items.map((u) => u.id) }).toEqual({ total: ordered.length, ids: ordered.slice(offset, offset + 5) });
    }
  }, 60_000);
});
