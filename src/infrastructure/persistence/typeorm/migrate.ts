import { type DataSource, type Migration, MigrationExecutor, type QueryRunner, QueryResult, TypeORMError } from 'typeorm';
import { isMysqlFamily } from './data-source';
import { withoutQueryTimeout } from './query-timeouts';

const LOCK_NAME = 'access_control_schema_migrations';
const LOCK_WAIT_SECONDS = 120;

/**
 * Applies pending migrations. On MySQL/MariaDB several replicas may start at once, so a named
 * lock makes them take turns: the first migrates, the others find nothing left to do.
 */
export async function runMigrations(dataSource: DataSource): Promise<string[]> {
  // The lock waits up to two minutes, and an index built on a large table may take longer than any request should.
  return withoutQueryTimeout(dataSource, () => migrate(dataSource));
}

async function migrate(dataSource: DataSource): Promise<string[]> {
  if (!isMysqlFamily(dataSource)) {
    return (await dataSource.runMigrations({ transaction: 'each' })).map((m) => m.name);
  }
  const runner = dataSource.createQueryRunner();
  try {
    const [row] = await runner.query('SELECT GET_LOCK(?, ?) AS acquired', [LOCK_NAME, LOCK_WAIT_SECONDS]);
    if (Number(row?.acquired) !== 1) throw new Error(`could not take the migration lock within ${LOCK_WAIT_SECONDS}s`);
    try {
      // DDL commits implicitly on MySQL, so each migration is its own step, and one stopped part-way is resumed.
      return (await againIfTableCreatedMeanwhile(() => runResumably(dataSource))).map((m) => m.name);
    } finally {
      await runner.query('SELECT RELEASE_LOCK(?)', [LOCK_NAME]);
    }
  } finally {
    await runner.release();
  }
}

export async function hasPendingMigrations(dataSource: DataSource): Promise<boolean> {
  return againIfTableCreatedMeanwhile(() => dataSource.showMigrations());
}

/**
 * TypeORM creates its migrations table when it finds it missing, outside the lock (`showMigrations` as well as
 * `runMigrations`): an api and the migrate step that reach a new database at the same moment both try, and one is
 * refused "table already exists" (seen in CI: the api exited 1). The table is then there, so the work is asked again.
 */
export async function againIfTableCreatedMeanwhile<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const e = error as { code?: string; errno?: number; driverError?: { code?: string; errno?: number } };
    const inner = e?.driverError ?? e;
    if (inner?.code !== 'ER_TABLE_EXISTS_ERROR' && inner?.errno !== 1050) throw error;
    return work();
  }
}

/**
 * The MySQL and MariaDB error numbers of a schema change that finds itself made already: the table there (1050), the
 * column (1060), the index or key name (1061), nothing left to drop (1091), the foreign key's name taken (1826 on
 * MySQL; MariaDB says 1005 "errno: 121").
 */
const ALREADY_MADE = new Set([1050, 1060, 1061, 1091, 1826]);

function alreadyMade(error: unknown, sql: string): boolean {
  const e = error as { errno?: number; message?: string; driverError?: { errno?: number; message?: string } };
  const inner = e?.driverError ?? e;
  if (inner?.errno === 1005) return /errno: 121/.test(inner.message ?? '');
  // A data step's rows, committed by the schema change after it (each commits the transaction so far): a statement is
  // atomic, so a duplicate of its own rows means all of them went in.
  if (inner?.errno === 1062) return /^\s*INSERT\b/i.test(sql);
  return inner?.errno !== undefined && ALREADY_MADE.has(inner.errno);
}

/** The query runner's drops that look their object up first and refuse, before any SQL, when it is gone. */
const DROPS = ['dropColumn', 'dropColumns', 'dropIndex', 'dropIndices', 'dropForeignKey', 'dropForeignKeys', 'dropUniqueConstraint', 'dropTable'] as const;
const GONE = /was not found|does not exist/;

function passedOver(what: string): void {
  process.emitWarning(`migration resumed: passed over a schema change made by an earlier run that stopped part-way: ${what.replace(/\s+/g, ' ').slice(0, 200)}`, {
    type: 'MigrationResumedWarning',
    code: 'MIGRATION_RESUMED',
  });
}

/**
 * MySQL and MariaDB commit each schema change at once (and the transaction's data steps before it), so a migration
 * stopped part-way (a SIGTERM, kill -9 or OOM of the migrate Job, a lost connection) leaves its first changes made and
 * the migration not recorded. Run again, it would fail on its first change ("Duplicate column name", a seed row's
 * "Duplicate entry", TypeORM's "index was not found") for ever, with no way out but a hand repair. So the migrations run
 * on a query runner whose changes that find themselves made already are passed over, each with a warning naming it (a
 * process warning, MigrationResumedWarning), and the migration goes on to the changes it had not made. Every migration
 * run again over itself goes through (test/integration/persistence/migration-resume.test.ts).
 */
async function runResumably(dataSource: DataSource): Promise<Migration[]> {
  const runner = dataSource.createQueryRunner();
  const query = runner.query.bind(runner) as (sql: string, parameters?: unknown[], structured?: boolean) => Promise<unknown>;
  runner.query = (async (sql: string, parameters?: unknown[], structured?: boolean) => {
    try {
      return await query(sql, parameters, structured);
    } catch (error) {
      if (!alreadyMade(error, sql)) throw error;
      passedOver(sql);
      return structured ? new QueryResult() : [];
    }
  }) as QueryRunner['query'];
  for (const method of DROPS) {
    const drop = (runner[method] as (...args: unknown[]) => Promise<void>).bind(runner);
    (runner as unknown as Record<string, (...args: unknown[]) => Promise<void>>)[method] = async (...args: unknown[]) => {
      try {
        await drop(...args);
      } catch (error) {
        if (!(error instanceof TypeORMError) || !GONE.test(error.message)) throw error;
        passedOver(`${method}: ${error.message}`);
      }
    };
  }
  try {
    const executor = new MigrationExecutor(dataSource, runner);
    executor.transaction = 'each';
    return await executor.executePendingMigrations();
  } finally {
    await runner.release();
  }
}

/**
 * The migrations recorded in this database that this build does not have: a newer version ran them (a rollback to an
 * older image, or an older replica beside newer ones in a rolling update). Each migration only adds or rewrites what
 * older versions read (README, "Rolling back"), so the older version runs on; the caller says so, once, at start.
 * Empty where no migration ran yet.
 */
export async function migrationsUnknownHere(dataSource: DataSource): Promise<string[]> {
  const table = dataSource.options.migrationsTableName ?? 'migrations';
  const known = new Set(dataSource.migrations.map((migration) => migration.name ?? migration.constructor.name));
  const runner = dataSource.createQueryRunner();
  try {
    if (!(await runner.hasTable(table))) return [];
    const rows = (await runner.query(`SELECT name FROM ${dataSource.driver.escape(table)} ORDER BY timestamp ASC`)) as { name: string }[];
    return rows.map((row) => row.name).filter((name) => !known.has(name));
  } finally {
    await runner.release();
  }
}
