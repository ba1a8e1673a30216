import type { DataSource } from 'typeorm';
import { QueuedInsideTurnError, SqliteWriteQueue } from '../../../../src/infrastructure/persistence/typeorm/sqlite-write-queue';

const sqlite = { options: { type: 'better-sqlite3' } } as unknown as DataSource;
const mysql = { options: { type: 'mysql' } } as unknown as DataSource;
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('SqliteWriteQueue', () => {
  it('runs turns one at a time, in the order they were queued, and a failed turn does not stop the next', async () => {
    const queue = new SqliteWriteQueue({ dataSource: sqlite });
    const log: string[] = [];
    const turn = (name: string, fail = false) =>
      queue.serialize(async () => {
        log.push(`${name} begins`);
        await tick();
        log.push(`${name} ends`);
        if (fail) throw new Error(name);
        return name;
      });

    const results = await Promise.allSettled([turn('a'), turn('b', true), turn('c')]);

    expect(log).toEqual(['a begins', 'a ends', 'b begins', 'b ends', 'c begins', 'c ends']);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });

  it('refuses at once a statement awaited from inside a turn (it would wait for itself), and goes on serving', async () => {
    const queue = new SqliteWriteQueue({ dataSource: sqlite });

    const outer = queue.serialize(async () => {
      await tick();
      // What a use case did when it read roles through the repository inside its unit of work.
      return queue.serialize(async () => 'never').catch((error: unknown) => error);
    });

    await expect(outer).resolves.toBeInstanceOf(QueuedInsideTurnError);
    await expect(queue.serialize(async () => 'next')).resolves.toBe('next');
  });

  it('lets work begun inside a turn queue once that turn has ended (a follow-up, not a wait on itself)', async () => {
    const queue = new SqliteWriteQueue({ dataSource: sqlite });
    let followUp: Promise<string> | undefined;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));

    await queue.serialize(async () => {
      followUp = released.then(() => queue.serialize(async () => 'follow-up'));
    });
    release();

    await expect(followUp).resolves.toBe('follow-up');
  });

  it('on MySQL and MariaDB runs everything at once, nested calls included (a pool, row locks)', async () => {
    const queue = new SqliteWriteQueue({ dataSource: mysql });
    await expect(queue.serialize(() => queue.serialize(async () => 'nested'))).resolves.toBe('nested');
  });
});
