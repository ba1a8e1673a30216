import { chmodSync, existsSync, mkdtempSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDataSource } from '../../../src/infrastructure/persistence/typeorm/data-source';

/** The embedded database holds password hashes and sealed secrets: a new file is its owner's alone, on either driver. */
describe.each(['better-sqlite3', 'sqljs'] as const)('the embedded SQLite file (%s)', (driver) => {
  const modeOf = (file: string) => statSync(file).mode & 0o777;

  it('is made 0600 whatever the umask, works, and keeps its rows across a reopen', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ac-sqlite-mode-'));
    const file = path.join(dir, 'access-control.sqlite');
    const previous = process.umask(0o022);
    try {
      const first = createDataSource({ kind: 'sqlite', path: file }, { sqliteDriver: driver });
      await first.initialize();
      await first.runMigrations();
      const before = (await first.query('SELECT COUNT(*) AS n FROM roles')) as { n: number }[];
      await first.destroy();
      expect(modeOf(file)).toBe(0o600);
      for (const side of [`${file}-wal`, `${file}-shm`]) if (existsSync(side)) expect({ side, mode: modeOf(side) }).toEqual({ side, mode: 0o600 });

      const again = createDataSource({ kind: 'sqlite', path: file }, { sqliteDriver: driver });
      await again.initialize();
      expect(await again.query('SELECT COUNT(*) AS n FROM roles')).toEqual(before);
      expect(Number(before[0]!.n)).toBeGreaterThan(0);
      await again.destroy();
    } finally {
      process.umask(previous);
    }
  });

  it('leaves an existing file’s mode as the operator set it', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ac-sqlite-mode-'));
    const file = path.join(dir, 'access-control.sqlite');
    const made = createDataSource({ kind: 'sqlite', path: file }, { sqliteDriver: driver });
    await made.initialize();
    await made.destroy();
    chmodSync(file, 0o640);
    const reopened = createDataSource({ kind: 'sqlite', path: file }, { sqliteDriver: driver });
    await reopened.initialize();
    await reopened.destroy();
    expect(modeOf(file)).toBe(0o640);
  });
});
