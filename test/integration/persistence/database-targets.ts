import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import { createDataSource, hasBetterSqlite3 } from '../../../src/infrastructure/persistence/typeorm/data-source';
import { runMigrations } from '../../../src/infrastructure/persistence/typeorm/migrate';
import { TypeOrmAdapters } from '../../support/typeorm-adapters';
import { createTestDatabase, mysqlServerUrl, serverUrl } from '../../support/test-database';

/** One real database the persistence suite runs against: MariaDB, MySQL 8, or SQLite through either driver. */
export interface DatabaseTarget {
  name: string;
  open(): Promise<{ dataSource: DataSource; dispose(): Promise<void> }>;
}

function serverTarget(name: string, server: () => string): DatabaseTarget {
  return {
    name,
    async open() {
      const database = await createTestDatabase('ac_test', server());
      const dataSource = createDataSource(database.config);
      await dataSource.initialize();
      return {
        dataSource,
        dispose: async () => {
          if (dataSource.isInitialized) await dataSource.destroy();
          await database.drop();
        },
      };
    },
  };
}

/** The server of database-server.ts: MariaDB, unless DATABASE_URL names a mysql:// one. */
export const mariadbTarget = serverTarget(
  process.env.TEST_DATABASE_SERVER_URL?.startsWith('mysql:') ? 'MySQL (DATABASE_URL)' : 'MariaDB',
  serverUrl,
);

/** MySQL 8 (MYSQL_DATABASE_URL, or run from a Maven Central artifact): what differs from MariaDB is tested there. */
export const mysql8Target = serverTarget('MySQL 8', mysqlServerUrl);

function sqliteTarget(driver: 'better-sqlite3' | 'sqljs'): DatabaseTarget {
  return {
    name: `SQLite (${driver})`,
    async open() {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'ac-sqlite-'));
      const dataSource = createDataSource({ kind: 'sqlite', path: path.join(dir, 'test.sqlite') }, { sqliteDriver: driver });
      await dataSource.initialize();
      return {
        dataSource,
        dispose: async () => {
          if (dataSource.isInitialized) await dataSource.destroy();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  };
}

/** Every target this machine can run: better-sqlite3 is optional, so it is tested where it installed. */
export const ALL_TARGETS: DatabaseTarget[] = [
  mariadbTarget,
  mysql8Target,
  ...(hasBetterSqlite3() ? [sqliteTarget('better-sqlite3')] : []),
  sqliteTarget('sqljs'),
];

/** A describe's database: opened on its target and migrated before the describe's tests, closed after them. */
export interface MigratedDatabase {
  dataSource: DataSource;
  /** The adapters of one process, as the composition root wires them. */
  adapters: TypeOrmAdapters;
  /** The migrations the first run applied (every one: the database starts empty). */
  applied: string[];
}

/** Registers the hooks of the enclosing describe; the fields are set once its beforeAll ran. */
export function migratedDatabase(target: DatabaseTarget): MigratedDatabase {
  const db = {} as MigratedDatabase;
  let dispose: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const opened = await target.open();
    dispose = opened.dispose;
    db.dataSource = opened.dataSource;
    db.applied = await runMigrations(opened.dataSource);
    db.adapters = new TypeOrmAdapters(opened.dataSource);
  });
  afterAll(async () => dispose?.());
  return db;
}
