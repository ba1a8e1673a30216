import type { DataSource } from 'typeorm';
import { isMysqlFamily } from './data-source';

const LOCK_NAME = 'access_control_schema_migrations';
const LOCK_WAIT_SECONDS = 120;

/**
 * Applies pending migrations. On MySQL/MariaDB several replicas may start at once, so a named
 * lock makes them take turns: the first migrates, the others find nothing left to do.
 */
export async function runMigrations(dataSource: DataSource): Promise<string[]> {
  if (!isMysqlFamily(dataSource)) {
    return (await dataSource.runMigrations({ transaction: 'each' })).map((m) => m.name);
  }
  const runner = dataSource.createQueryRunner();
  try {
    const [row] = await runner.query('SELECT GET_LOCK(?, ?) AS acquired', [LOCK_NAME, LOCK_WAIT_SECONDS]);
    if (Number(row?.acquired) !== 1) throw new Error(`could not take the migration lock within ${LOCK_WAIT_SECONDS}s`);
    try {
      // DDL commits implicitly on MySQL, so each migration is its own step.
      return (await dataSource.runMigrations({ transaction: 'each' })).map((m) => m.name);
    } finally {
      await runner.query('SELECT RELEASE_LOCK(?)', [LOCK_NAME]);
    }
  } finally {
    await runner.release();
  }
}

export async function hasPendingMigrations(dataSource: DataSource): Promise<boolean> {
  return dataSource.showMigrations();
}
