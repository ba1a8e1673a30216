import type { DataSource } from 'typeorm';
import { runMigrations } from '../../../src/infrastructure/persistence/typeorm/migrate';
import { mariadbTarget, mysql8Target } from './database-targets';

/**
 * A migration stopped part-way on MySQL or MariaDB, which commit each schema change at once (a SIGTERM, kill -9 or OOM
 * of the migrate Job): its first change made, the rest not, the migration not recorded. The next run resumes it
 * instead of failing on the change it finds made ("Duplicate column name") for ever. SQLite's migrations are
 * transactional: there a migration is made whole or not at all.
 */
describe.each([mariadbTarget, mysql8Target])('a migration stopped part-way on $name', (target) => {
  let dataSource: DataSource;
  let dispose: () => Promise<void>;

  beforeAll(async () => {
    ({ dataSource, dispose } = await target.open());
    await runMigrations(dataSource);
  });
  afterAll(async () => dispose?.());

  const columns = async (table: string) =>
    ((await dataSource.query('SELECT column_name AS name FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = ?', [table])) as { name: string }[])
      .map((row) => row.name)
      .filter((name) => name.startsWith('entry_seal'));

  it('passes over a drop TypeORM refuses for an index already gone (DropRoleIdIndex stopped after its one change)', async () => {
    await dataSource.query("DELETE FROM schema_migrations WHERE name = 'DropRoleIdIndex1765900000000'");
    const emitWarning = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      expect(await runMigrations(dataSource)).toEqual(['DropRoleIdIndex1765900000000']);
      expect(emitWarning).toHaveBeenCalledWith(expect.stringMatching(/dropIndex: Supplied index ix_users_role_id was not found/), expect.objectContaining({ code: 'MIGRATION_RESUMED' }));
    } finally {
      emitWarning.mockRestore();
    }
  });

  it('is resumed by the next run: the changes it had made passed over with a warning, the others made, the migration recorded', async () => {
    // AuditEntrySeal1766400000000 adds audit_events.entry_seal, then audit_chain.entry_seals_from and entry_seals_seal:
    // stopped after its first change.
    await dataSource.query('ALTER TABLE audit_chain DROP COLUMN entry_seals_from, DROP COLUMN entry_seals_seal');
    await dataSource.query("DELETE FROM schema_migrations WHERE name = 'AuditEntrySeal1766400000000'");

    const warnings: { message: string; code?: string }[] = [];
    const emitWarning = jest.spyOn(process, 'emitWarning').mockImplementation((warning, options) => {
      warnings.push({ message: String(warning), code: (options as { code?: string } | undefined)?.code });
    });
    let applied: string[];
    try {
      applied = await runMigrations(dataSource);
    } finally {
      emitWarning.mockRestore();
    }

    expect(applied).toEqual(['AuditEntrySeal1766400000000']);
    expect(await columns('audit_events')).toEqual(['entry_seal']);
    expect((await columns('audit_chain')).sort()).toEqual(['entry_seals_from', 'entry_seals_seal']);
    expect(warnings).toEqual([{ code: 'MIGRATION_RESUMED', message: expect.stringMatching(/^migration resumed: .*ALTER TABLE `audit_events` ADD `entry_seal`/) }]);
    expect(await runMigrations(dataSource)).toEqual([]);
  });

  // The extreme of a stop part-way: every change of a migration made (a data step's rows committed by the schema change
  // after it), the migration not recorded. Each migration, run again over itself, must go through. Last: running the
  // older ones again remakes what later ones dropped.
  it('goes through for each migration, recorded again once', async () => {
    const names = ((await dataSource.query('SELECT name FROM schema_migrations ORDER BY id')) as { name: string }[]).map((row) => row.name);
    const failed: string[] = [];
    const emitWarning = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      for (const name of names) {
        await dataSource.query('DELETE FROM schema_migrations WHERE name = ?', [name]);
        try {
          expect(await runMigrations(dataSource)).toEqual([name]);
        } catch (error) {
          failed.push(`${name}: ${(error as Error).message.split('\n')[0]}`);
          await dataSource.query('INSERT INTO schema_migrations (timestamp, name) VALUES (?, ?)', [Number(/\d{13}/.exec(name)![0]), name]);
        }
      }
    } finally {
      emitWarning.mockRestore();
    }
    expect(failed).toEqual([]);
  });
});
