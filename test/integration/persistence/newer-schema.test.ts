import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { loadConfig } from '../../../src/infrastructure/config/config';
import { buildContainer } from '../../../src/infrastructure/container';
import { createLogger } from '../../../src/infrastructure/logging/logger';
import { migrationsUnknownHere, runMigrations } from '../../../src/infrastructure/persistence/typeorm/migrate';
import { prepareDatabase } from '../../../src/interfaces/process-runtime';
import { ALL_TARGETS, migratedDatabase } from './database-targets';

/** A migration of a version after this one, as it records itself (TypeORM's row: timestamp and class name). */
const NEWER = { timestamp: 4102444800000, name: 'FromTheFuture4102444800000' };

/**
 * An older version started on a database a newer one migrated (a rollback, or an old replica in a rolling update):
 * it runs on, as README's "Rolling back" says it may, and says once at start which migrations it does not know.
 */
describe.each(ALL_TARGETS)('a database migrated by a newer version, on $name', (target) => {
  const db = migratedDatabase(target);

  it('names the migrations this build does not have, and applies nothing', async () => {
    expect(await migrationsUnknownHere(db.dataSource)).toEqual([]);
    await db.dataSource.query('INSERT INTO schema_migrations (timestamp, name) VALUES (?, ?)', [NEWER.timestamp, NEWER.name]);
    try {
      expect(await migrationsUnknownHere(db.dataSource)).toEqual([NEWER.name]);
      expect(await runMigrations(db.dataSource)).toEqual([]);
    } finally {
      await db.dataSource.query('DELETE FROM schema_migrations WHERE name = ?', [NEWER.name]);
    }
  });
});

describe('an api starting on a database a newer version migrated', () => {
  it('warns once, naming the unknown migrations, and starts', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ac-newer-schema-'));
    const lines: { level: number; msg: string; migrations?: string[] }[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    /** The api's start, up to its database prepared; then its container is disposed, as at a stop. */
    const start = async (before?: (run: (sql: string, values: unknown[]) => Promise<unknown>) => Promise<unknown>) => {
      const container = buildContainer(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'info', PORT: '0' }), createLogger('info', destination));
      try {
        await prepareDatabase(container, { migrate: true, topics: false });
        await before?.((sql, values) => container.cradle.dataSource.query(sql, values));
      } finally {
        await container.dispose();
      }
    };
    try {
      await start((run) => run('INSERT INTO schema_migrations (timestamp, name) VALUES (?, ?)', [NEWER.timestamp, NEWER.name]));
      expect(lines.filter((line) => line.level === 40)).toEqual([]);
      lines.length = 0;

      await start();
      const warnings = lines.filter((line) => line.level === 40);
      expect(warnings).toEqual([expect.objectContaining({ migrations: [NEWER.name], msg: expect.stringMatching(/migrated by a newer version/) })]);
      expect(lines.some((line) => line.msg === 'migrations applied')).toBe(false);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
