import type { DataSource } from 'typeorm';
import { isMysqlFamily } from './data-source';
import { retryDeadlocks } from './deadlock-retry';
import type { SqliteWriteQueue } from './sqlite-write-queue';
import { BUCKET_MAX, LIST_BUCKETS_TABLE, LIST_COUNTS_TABLE } from './user-list-buckets';

/** After this many rows added by this process, it looks whether the last bucket is full. */
export const TAIL_CHECK_EVERY = 32;

/**
 * Closes the page index's last bucket (user-list-buckets.ts) once it holds BUCKET_MAX rows, after the writes, in a
 * transaction of its own: writers never update a shared bucket row, and the last bucket (where every new UUIDv7 id
 * lands) overshoots BUCKET_MAX by at most what the replicas add between two looks (a longer seek, still exact).
 *
 * A close takes the last bucket's row exclusively (waiting for the writers that counted into it, which hold it
 * shared to their commit; the writers after wait for the close), then starts a new bucket at the least id above
 * every committed one. A writer whose uncommitted id lies above that reads its bucket after the close and counts
 * into the new one; one below it (a replica's clock behind) counts into the old one: either way, the bucket that
 * holds it. One per process and data source, registered by the composition root.
 */
export class UserListTail {
  private readonly dataSource: DataSource;
  private readonly queue: SqliteWriteQueue;
  private sinceLook = 0;
  private looking: Promise<void> | null = null;

  constructor({ dataSource, sqliteWriteQueue }: { dataSource: DataSource; sqliteWriteQueue: SqliteWriteQueue }) {
    this.dataSource = dataSource;
    this.queue = sqliteWriteQueue;
  }

  /** `n` rows were added to the index by this process: every TAIL_CHECK_EVERY, a look in the background. */
  noteAdded(n: number): void {
    this.sinceLook += n;
    if (this.sinceLook < TAIL_CHECK_EVERY || this.looking) return;
    this.sinceLook = 0;
    // After a tick: the transaction that noted its rows commits first (SQLite queues the look after it anyway).
    this.looking = new Promise((resolve) => setImmediate(resolve))
      .then(() => this.closeIfFull())
      .then(
        () => undefined,
        // Not closed this time (the database away, the process stopping): the next add looks again.
        () => {
          this.sinceLook = TAIL_CHECK_EVERY;
        },
      )
      .finally(() => {
        this.looking = null;
      });
  }

  /** Starts a new last bucket if the last one holds BUCKET_MAX rows or more; answers whether it did. */
  closeIfFull(): Promise<boolean> {
    return this.queue.serialize(async () => {
      if (!this.dataSource.isInitialized) return false;
      const [last] = (await this.dataSource.query(`SELECT start_id FROM ${LIST_BUCKETS_TABLE} ORDER BY start_id DESC LIMIT 1`)) as Record<string, unknown>[];
      if (!last) return false;
      const start = String(last.start_id);
      const [held] = (await this.dataSource.query(`SELECT COALESCE(SUM(n), 0) AS n FROM ${LIST_COUNTS_TABLE} WHERE start_id = ?`, [start])) as Record<string, unknown>[];
      if (Number(held?.n ?? 0) < BUCKET_MAX) return false;
      return retryDeadlocks(() => this.dataSource.transaction((manager) => this.close(manager.query.bind(manager), start)));
    });
  }

  private async close(query: (sql: string, parameters?: unknown[]) => Promise<unknown>, start: string): Promise<boolean> {
    const lock = isMysqlFamily(this.dataSource) ? ' FOR UPDATE' : '';
    const [last] = (await query(`SELECT start_id FROM ${LIST_BUCKETS_TABLE} ORDER BY start_id DESC LIMIT 1${lock}`)) as Record<string, unknown>[];
    // Another process closed it meanwhile.
    if (String(last?.start_id) !== start) return false;
    const [max] = (await query('SELECT MAX(id) AS id FROM users WHERE id >= ?', [start])) as Record<string, unknown>[];
    if (max?.id === null || max?.id === undefined) return false;
    const next = successor(String(max.id));
    await query(`INSERT INTO ${LIST_BUCKETS_TABLE} (start_id, size, last_id) VALUES (?, 0, ?)`, [next, next]);
    return true;
  }
}

/** A bucket start above `id` (its last character moved on by one): of the ids of its length, the least one above it. */
export function successor(id: string): string {
  return id.slice(0, -1) + String.fromCharCode(id.charCodeAt(id.length - 1) + 1);
}
