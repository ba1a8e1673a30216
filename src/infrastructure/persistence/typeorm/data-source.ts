import 'reflect-metadata';
import { accessSync, closeSync, constants as fsConstants, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import { DataSource, type DataSourceOptions } from 'typeorm';
import type { DatabaseConfig } from '../../config/config';
import { MIGRATIONS } from '../migrations';
import { queryTimeoutOptions } from './query-timeouts';
import { ENTITY_SCHEMAS } from './records';

export interface DataSourceSettings {
  poolSize?: number;
  /** MySQL/MariaDB: the longest a statement may go unanswered, in ms (DATABASE_QUERY_TIMEOUT; absent or 0: unbounded). */
  queryTimeoutMs?: number;
  /** Which SQLite driver; by default better-sqlite3 when it is installed, else sql.js. */
  sqliteDriver?: 'better-sqlite3' | 'sqljs';
}

/** The TypeORM data source for a configured database, not yet initialized. */
export function createDataSource(database: DatabaseConfig, settings: DataSourceSettings = {}): DataSource {
  const common = {
    entities: ENTITY_SCHEMAS,
    migrations: MIGRATIONS,
    migrationsTableName: 'schema_migrations',
    // Each migration in a transaction of its own, as runMigrations asks: one that commits as it goes (a batched delete,
    // `transaction = false`) is refused in TypeORM's default mode 'all', so `runMigrations()` without options works too.
    migrationsTransactionMode: 'each',
    synchronize: false,
    logging: false,
  } as const;

  if (database.kind === 'sqlite') {
    if (database.path !== ':memory:') {
      ensureWritableDirectory(path.dirname(database.path));
      createPrivately(database.path);
    }
    return new DataSource({ ...common, ...sqliteDriver(database.path, settings.sqliteDriver) });
  }

  return new DataSource({
    ...common,
    type: database.kind,
    url: database.url,
    timezone: 'Z',
    charset: 'utf8mb4_unicode_ci',
    // A database that takes a statement and never answers (stalled, or its answers lost) fails the statement and drops
    // its connection, instead of holding the request and the connection until it answers, if ever (query-timeouts.ts);
    // a connection it accepts and never greets fails as soon (10 s at most).
    connectTimeout: settings.queryTimeoutMs ? Math.min(10_000, settings.queryTimeoutMs) : 10_000,
    ...queryTimeoutOptions(settings.queryTimeoutMs ?? 0),
    poolSize: settings.poolSize ?? 10,
    extra: {
      // Fail fast instead of queueing forever while the database is away.
      queueLimit: 1000,
      enableKeepAlive: true,
    },
  });
}

/**
 * The embedded database must outlive the process, so a directory it cannot write (a root-owned
 * tmpfs, a read-only mount) stops the start with what to do, not with a driver's stack trace.
 */
function ensureWritableDirectory(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, fsConstants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new Error(
      `DATA_DIR: ${dir} is not writable by this user (uid ${process.getuid?.() ?? '?'}, ${code}); the embedded SQLite database lives there. ` +
        'Mount a volume the user can write (on Podman a tmpfs needs the U option), or set DATABASE_URL',
    );
  }
}

/**
 * A new embedded database file is made readable by its owner only (0600, whatever the umask): it holds the password
 * hashes and the sealed secrets, as `admin-password` and the keys beside it are kept. SQLite gives its `-wal` and
 * `-shm` files the database file's mode. An existing file keeps the mode it has (an operator's choice).
 */
function createPrivately(file: string): void {
  try {
    closeSync(openSync(file, fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_WRONLY, 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/**
 * better-sqlite3 is the embedded default; it is an optional native addon, so when it could
 * not be installed (no prebuilt binary and no compiler) sql.js, pure WebAssembly, takes over.
 */
function sqliteDriver(file: string, choice?: 'better-sqlite3' | 'sqljs'): DataSourceOptions {
  if (choice === 'better-sqlite3' || (choice === undefined && hasBetterSqlite3())) {
    return {
      type: 'better-sqlite3',
      database: file,
      enableWAL: file !== ':memory:',
      prepareDatabase: (db: { pragma(sql: string): unknown }) => {
        db.pragma('busy_timeout = 5000');
      },
    };
  }
  return file === ':memory:'
    ? { type: 'sqljs', autoSave: false }
    : { type: 'sqljs', location: file, autoSave: true, useLocalForage: false };
}

export function hasBetterSqlite3(): boolean {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const Database = require('better-sqlite3');
    new Database(':memory:').close();
    return true;
  } catch {
    return false;
  }
}

export function isMysqlFamily(dataSource: DataSource): boolean {
  return dataSource.options.type === 'mysql' || dataSource.options.type === 'mariadb';
}

/**
 * Closes the data source at shutdown. mysql2's pool ends every connection and reports the first one's failure: a
 * connection whose handshake the server never answered (a database gone silent, DATABASE_QUERY_TIMEOUT bounding the
 * wait) fails with its own timeout while the others close. Its socket is gone with that timeout, so nothing is left
 * open, and the shutdown goes on instead of failing for it; any other error is the caller's.
 */
export async function closeDataSource(dataSource: DataSource): Promise<void> {
  if (!dataSource.isInitialized) return;
  await dataSource.destroy().catch((error: unknown) => {
    if ((error as { fatal?: unknown } | null)?.fatal !== true) throw error;
  });
}
