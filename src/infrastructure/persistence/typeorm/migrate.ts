import type { DataSource } from 'typeorm';
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
      // DDL commits implicitly on MySQL, so each migration is its own step.
      return (await againIfTableCreatedMeanwhile(() => dataSource.runMigrations({ transaction: 'each' }))).map((m) => m.name);
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
