import { ERASED_ROWS_BATCH as BATCH } from '../../../src/infrastructure/persistence/migrations/1767100000000-erased-rows-keep-member';
import { SEEDED_ROLES } from '../../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { runMigrations } from '../../../src/infrastructure/persistence/typeorm/migrate';
import { UuidV7IdGenerator } from '../../../src/infrastructure/system/uuid-v7-id-generator';
import { ALL_TARGETS, migratedDatabase } from './database-targets';

const NAME = 'ErasedRowsKeepMember1767100000000';
const ids = new UuidV7IdGenerator();

/**
 * Migration 1767100000000 moves the rows of users erased by earlier versions, which kept their role, onto the built-in
 * member role: deleting a custom role then has nothing to move. On MySQL and MariaDB it goes a batch at a time; live
 * users keep their roles.
 */
describe.each(ALL_TARGETS)('the migration that moves erased rows onto the member role on $name', (target) => {
  const db = migratedDatabase(target);

  it('moves every erased row, more than a batch of them, and no live one', async () => {
    const role = ids.next();
    const now = new Date().toISOString().slice(0, 23).replace('T', ' ');
    await db.dataSource.query('INSERT INTO roles (id, name, name_key, created_at) VALUES (?, ?, ?, ?)', [role, 'departed', 'departed', now]);
    const erased = BATCH * 2 + 7;
    const rows = Array.from({ length: erased + 3 }, (_, i) => {
      const id = ids.next();
      return i < erased
        ? `('${id}', NULL, NULL, NULL, NULL, NULL, NULL, '${role}', '${now}', 'deleted')`
        : `('${id}', 'live${i}@example.com', 'live${i}@example.com', 'Live', 'live', 'live${i}', 'live${i}', '${role}', '${now}', 'active')`;
    });
    for (let i = 0; i < rows.length; i += 500) {
      await db.dataSource.query(`INSERT INTO users (id, email, email_key, name, name_key, username, username_key, role_id, invited_at, status) VALUES ${rows.slice(i, i + 500).join(', ')}`);
    }
    const held = async () =>
      ((await db.dataSource.query('SELECT status, role_id AS role, COUNT(*) AS n FROM users WHERE role_id IN (?, ?) GROUP BY status, role_id ORDER BY status, role_id', [role, SEEDED_ROLES.member])) as { status: string; role: string; n: number | string }[]).map(
        (r) => `${r.status} ${r.role === role ? 'departed' : 'member'} ${Number(r.n)}`,
      );
    expect(await held()).toEqual([`active departed 3`, `deleted departed ${erased}`]);

    await db.dataSource.query('DELETE FROM schema_migrations WHERE name = ?', [NAME]);
    expect(await runMigrations(db.dataSource)).toEqual([NAME]);
    expect(await held()).toEqual([`active departed 3`, `deleted member ${erased}`]);
  });
});
