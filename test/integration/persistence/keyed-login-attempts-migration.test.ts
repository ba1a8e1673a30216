import type { DataSource, QueryRunner } from 'typeorm';
import {
  KEYED_LOGIN_ATTEMPTS_BATCH as BATCH,
  KeyedLoginAttempts1766300000000,
} from '../../../src/infrastructure/persistence/migrations/1766300000000-keyed-login-attempts';
import { runMigrations } from '../../../src/infrastructure/persistence/typeorm/migrate';
import { connectTo } from '../../support/test-database';
import { ALL_TARGETS, mariadbTarget, migratedDatabase, mysql8Target } from './database-targets';

const NAME = 'KeyedLoginAttempts1766300000000';
/** Three batches and a half of name-keyed rows. */
const ROWS = 3 * BATCH + BATCH / 2;
/** The rows' keys, in the order of the key (the same in JavaScript as in utf8mb4_bin: ASCII). */
const keys = Array.from({ length: ROWS }, (_, i) => `name-${String(i).padStart(6, '0')}@example.com`);

/** The rows as the previous version wrote them, many to a statement. */
async function fill(dataSource: DataSource): Promise<void> {
  for (let i = 0; i < ROWS; i += 1_000) {
    const values = keys.slice(i, i + 1_000).map((key) => `('${key}', 2, 0)`);
    await dataSource.query(`INSERT INTO login_attempts (username_key, failures, lockouts) VALUES ${values.join(', ')}`);
  }
}

/**
 * Migration 1766300000000 deletes the name-keyed `login_attempts` rows. On MySQL and MariaDB it deletes them a batch at
 * a time, each committed on its own, so the previous version's replicas, still writing the table in a rolling update,
 * never wait for the whole deletion (one DELETE in the migration's transaction held its locks for seconds).
 */
describe.each(ALL_TARGETS)('the migration that deletes the name-keyed lockout rows on $name', (target) => {
  const db = migratedDatabase(target);

  const count = async () => Number(((await db.dataSource.query('SELECT COUNT(*) AS n FROM login_attempts')) as { n: number | string }[])[0]!.n);

  it('deletes every row, more than a batch of them, as the migrate step runs it; down deletes them as well', async () => {
    await fill(db.dataSource);
    expect(await count()).toBe(ROWS);
    await db.dataSource.query('DELETE FROM schema_migrations WHERE name = ?', [NAME]);
    expect(await runMigrations(db.dataSource)).toEqual([NAME]);
    expect(await count()).toBe(0);

    await fill(db.dataSource);
    const runner = db.dataSource.createQueryRunner();
    try {
      await new KeyedLoginAttempts1766300000000().down(runner);
    } finally {
      await runner.release();
    }
    expect(await count()).toBe(0);
  });
});

describe.each([mariadbTarget, mysql8Target])('the deletion of the name-keyed lockout rows beside writers of the previous version on $name', (target) => {
  const db = migratedDatabase(target);

  it('commits batch by batch: between two, another connection sees the rows gone so far, and writes any row without waiting', async () => {
    await fill(db.dataSource);
    await db.dataSource.query('DELETE FROM schema_migrations WHERE name = ?', [NAME]);

    // A replica of the previous version: its sign-ins' upsert, refused after a second's wait for a lock.
    const replica = await connectTo((db.dataSource.options as { url: string }).url);
    await replica.query('SET SESSION innodb_lock_wait_timeout = 1');
    const signIn = (key: string) =>
      replica.query('INSERT INTO login_attempts (username_key, failures, lockouts) VALUES (?, 1, 0) ON DUPLICATE KEY UPDATE failures = failures + 1', [key]);
    const deleted = keys[0]!; // in the first batch
    const ahead = keys[ROWS - 1]!; // in the last batch
    let seen: { rows: number; written: string } | undefined;

    // After the migration's first DELETE returns, before its next statement.
    const createQueryRunner = db.dataSource.createQueryRunner.bind(db.dataSource);
    const spy = jest.spyOn(db.dataSource, 'createQueryRunner').mockImplementation((...args) => {
      const runner = createQueryRunner(...args);
      const query = runner.query.bind(runner) as (...rest: unknown[]) => Promise<unknown>;
      runner.query = (async (sql: string, ...rest: unknown[]) => {
        const answer = await query(sql, ...rest);
        if (seen === undefined && /^DELETE FROM login_attempts\b/.test(sql)) {
          const [rows] = await replica.query('SELECT COUNT(*) AS n FROM login_attempts');
          let written = 'both';
          try {
            await signIn(deleted);
            await signIn(ahead);
          } catch (error) {
            written = (error as Error).message;
          }
          seen = { rows: Number((rows as { n: number | string }[])[0]!.n), written };
        }
        return answer;
      }) as QueryRunner['query'];
      return runner;
    });
    try {
      expect(await runMigrations(db.dataSource)).toEqual([NAME]);
    } finally {
      spy.mockRestore();
      await replica.end();
    }

    expect(seen).toEqual({ rows: ROWS - BATCH, written: 'both' });
    // The row written again behind the batches stays (harmless, unread); the one ahead of them went with its batch.
    expect(await db.dataSource.query('SELECT username_key, failures FROM login_attempts')).toEqual([{ username_key: deleted, failures: 1 }]);
  });
});
