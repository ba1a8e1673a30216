import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import { createDataSource, hasBetterSqlite3 } from '../../../src/infrastructure/persistence/typeorm/data-source';
import { createTestDatabase } from '../../support/test-database';

/** One real database the persistence suite runs against: MariaDB/MySQL, or SQLite through either driver. */
export interface DatabaseTarget {
  name: string;
  open(): Promise<{ dataSource: DataSource; dispose(): Promise<void> }>;
}

export const mysqlTarget: DatabaseTarget = {
  name: 'MariaDB/MySQL',
  async open() {
    const database = await createTestDatabase();
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
  mysqlTarget,
  ...(hasBetterSqlite3() ? [sqliteTarget('better-sqlite3')] : []),
  sqliteTarget('sqljs'),
];
