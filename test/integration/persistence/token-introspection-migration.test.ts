import type { DataSource } from 'typeorm';
import { SEEDED_ROLES } from '../../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { TokenIntrospection1765100000000 } from '../../../src/infrastructure/persistence/migrations/1765100000000-token-introspection';
import { runMigrations } from '../../../src/infrastructure/persistence/typeorm/migrate';
import { ALL_TARGETS } from './database-targets';

/** The token-introspection migration (#21): additive, one permission in a group of its own, granted to admin. */
describe.each(ALL_TARGETS)('the token-introspection migration on $name', (target) => {
  let dataSource: DataSource;
  let dispose: () => Promise<void>;

  beforeAll(async () => {
    ({ dataSource, dispose } = await target.open());
    await runMigrations(dataSource);
  });
  afterAll(async () => dispose?.());

  const granted = async () =>
    ((await dataSource.query(
      "SELECT p.name AS name FROM role_permissions rp JOIN permissions p ON p.id = rp.permission_id WHERE rp.role_id = ? AND p.group_name = 'tokens'",
      [SEEDED_ROLES.admin],
    )) as { name: string }[]).map((r) => r.name);
  const revision = async () => Number(((await dataSource.query('SELECT revision FROM role_catalogue WHERE id = 1')) as { revision: number }[])[0]!.revision);

  it('grants admin tokens:introspect, moves the role catalogue on, and goes down and up again', async () => {
    expect(await granted()).toEqual(['tokens:introspect']);
    const runner = dataSource.createQueryRunner();
    try {
      const migration = new TokenIntrospection1765100000000();
      const before = await revision();
      await migration.down(runner);
      expect(await granted()).toEqual([]);
      await migration.up(runner);
      expect(await granted()).toEqual(['tokens:introspect']);
      expect(await revision()).toBe(before + 2);
    } finally {
      await runner.release();
    }
  });
});
