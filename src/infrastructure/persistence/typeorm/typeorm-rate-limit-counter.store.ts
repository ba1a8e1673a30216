import { createHash } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import type { RateLimitCounter, RateLimitWindow } from '../../../application/ports/rate-limit-counter.port';
import { BatchedLookup } from './batched-lookup';
import { isMysqlFamily } from './data-source';
import { PeriodicPurge } from './periodic-purge';
import { retryDeadlocks } from './deadlock-retry';
import { RateLimitCounterSchema } from './records';
import type { SqliteWriteQueue } from './sqlite-write-queue';

export interface TypeOrmRateLimitCounterDeps {
  dataSource: DataSource;
  sqliteWriteQueue: SqliteWriteQueue;
  /** A purge runs after the hit that found it due, not in the request's path: its failure is only reported. */
  onPurgeFailed?: (error: unknown) => void;
  /** How often this process deletes ended windows; every replica purges, so this bounds the rows left over. */
  purgeEveryMs?: number;
}

interface PeekedRow {
  hits: number | string;
  window_end: unknown;
}

/** Keys deleted per statement: a short delete holds its row locks only briefly. */
const PURGE_BATCH = 500;

/**
 * Throttle counters in the database, shared by every replica. A hit is one upsert that counts into
 * the key's live window or starts a new one, atomic on MySQL, MariaDB and SQLite alike: parallel
 * hits on any replicas are each counted once, and the count each gets back is its own.
 *
 * Both conditions read only the row's old `window_end`, and `hits` is assigned before `window_end`
 * changes: MySQL applies the assignments left to right (a later one sees an earlier one's result),
 * SQLite all at once, and the row comes out the same either way.
 */
export class TypeOrmRateLimitCounter implements RateLimitCounter {
  private readonly mysqlFamily: boolean;
  private readonly hitSql: string;
  private readonly windowEndSql = 'SELECT window_end FROM rate_limit_counters WHERE counter_key = ?';
  private readonly endedSql = `SELECT counter_key FROM rate_limit_counters WHERE window_end <= ? LIMIT ${PURGE_BATCH}`;
  private readonly dataSource: DataSource;
  private readonly sqliteWriteQueue: SqliteWriteQueue;
  /** The purge of ended windows, after a hit every `purgeEveryMs` (a minute). */
  private readonly purge: PeriodicPurge;
  private windowEndColumn: ColumnMetadata | undefined;
  /**
   * Peeks asked for at once share one statement (every client authentication peeks at two keys, its
   * client's and its address's): as fresh as a statement each, never a cache (batched-lookup.ts). In turn
   * on SQLite, as every statement outside a transaction: unqueued, it could see another request's
   * uncommitted rows.
   */
  private readonly peeks = new BatchedLookup<string, PeekedRow>(async (keys) => {
    const sql = `SELECT counter_key, hits, window_end FROM rate_limit_counters WHERE counter_key IN (${keys.map(() => '?').join(', ')})`;
    const rows = (await this.sqliteWriteQueue.serialize(() => this.dataSource.query(sql, keys))) as (PeekedRow & { counter_key: string })[];
    return new Map(rows.map((row) => [row.counter_key, row]));
  });

  constructor(deps: TypeOrmRateLimitCounterDeps) {
    this.dataSource = deps.dataSource;
    this.sqliteWriteQueue = deps.sqliteWriteQueue;
    this.purge = new PeriodicPurge(deps.purgeEveryMs ?? 60_000, deps.onPurgeFailed);
    this.mysqlFamily = isMysqlFamily(deps.dataSource);
    const insert = 'INSERT INTO rate_limit_counters (counter_key, window_end, hits) VALUES (?, ?, 1)';
    // MySQL has no RETURNING: LAST_INSERT_ID(expr) hands the new count back in the statement's own
    // result (its insert id), so the count needs no second read that another hit could slip before.
    // VALUES() is deprecated there since 8.0.20: the new window's end is a parameter again instead.
    this.hitSql = this.mysqlFamily
      ? `${insert} ON DUPLICATE KEY UPDATE hits = LAST_INSERT_ID(IF(window_end > ?, hits + 1, 1)), ` +
        'window_end = IF(window_end > ?, window_end, ?)'
      : `${insert} ON CONFLICT (counter_key) DO UPDATE SET hits = CASE WHEN window_end > ? THEN hits + 1 ELSE 1 END, ` +
        'window_end = CASE WHEN window_end > ? THEN window_end ELSE excluded.window_end END RETURNING hits, window_end';
  }

  async peek(key: string, now: Date): Promise<RateLimitWindow | null> {
    const row = await this.peeks.get(counterKeyOf(key));
    if (!row) return null;
    const endsAt = this.hydrated(row.window_end);
    return endsAt.getTime() > now.getTime() ? { hits: Number(row.hits), endsAt } : null;
  }

  async hit(key: string, now: Date, windowMs: number): Promise<RateLimitWindow> {
    const counterKey = counterKeyOf(key);
    const newEnd = new Date(now.getTime() + windowMs);
    const window = this.mysqlFamily ? await this.hitMysql(counterKey, now, newEnd) : await this.hitSqlite(counterKey, now, newEnd);
    this.purge.runIfDue(now.getTime(), () => this.purgeEnded(now));
    return window;
  }

  /** Deletes the rows of windows ended by `now`, a batch at a time; answers how many went. */
  async purgeEnded(now: Date): Promise<number> {
    const at = this.datetime(now);
    let deleted = 0;
    for (;;) {
      // Read without locks, then deleted by primary key: the delete locks those rows, not a range of the
      // window_end index that hits on other keys write into, and a window a hit renewed in between stays.
      const rows = (await this.dataSource.query(this.endedSql, [at])) as { counter_key: string }[];
      if (rows.length === 0) return deleted;
      const keys = rows.map((row) => row.counter_key);
      deleted += await this.run(
        `DELETE FROM rate_limit_counters WHERE counter_key IN (${keys.map(() => '?').join(', ')}) AND window_end <= ?`,
        [...keys, at],
      );
      if (rows.length < PURGE_BATCH) return deleted;
    }
  }

  private async hitMysql(counterKey: string, now: Date, newEnd: Date): Promise<RateLimitWindow> {
    const end = this.datetime(newEnd);
    const at = this.datetime(now);
    // InnoDB may end a hit as a deadlock's victim (a purge deleting the same ended window); the
    // statement was rolled back whole, so running it again counts the hit exactly once.
    const result = await retryDeadlocks(() => this.query(this.hitSql, [counterKey, end, at, at, end]));
    // One affected row: inserted, the window's first hit. Two: updated, and the count is the insert id.
    const { affectedRows, insertId } = result.raw as { affectedRows: number; insertId: number | string };
    const hits = affectedRows === 1 ? 1 : Number(insertId);
    if (!(hits >= 1)) throw new Error(`rate-limit upsert answered no count (affected ${affectedRows}, insert id ${insertId})`);
    if (hits === 1) return { hits, endsAt: newEnd };
    const [row] = (await this.dataSource.query(this.windowEndSql, [counterKey])) as { window_end: unknown }[];
    // Only the end of the window is read apart from the count; a row purged in between ended anyway.
    return { hits, endsAt: row ? this.hydrated(row.window_end) : newEnd };
  }

  private async hitSqlite(counterKey: string, now: Date, newEnd: Date): Promise<RateLimitWindow> {
    const at = this.datetime(now);
    const result = await this.sqliteWriteQueue.serialize(() => this.query(this.hitSql, [counterKey, this.datetime(newEnd), at, at]));
    const [row] = result.records as { hits: number | string; window_end: unknown }[];
    return { hits: Number(row!.hits), endsAt: this.hydrated(row!.window_end) };
  }

  private async run(sql: string, parameters: unknown[]): Promise<number> {
    return (await this.sqliteWriteQueue.serialize(() => this.query(sql, parameters))).affected ?? 0;
  }

  /** One statement on a connection of its own, with the driver's structured result. */
  private async query(sql: string, parameters: unknown[]) {
    const runner = this.dataSource.createQueryRunner();
    try {
      return await runner.query(sql, parameters, true);
    } finally {
      await runner.release();
    }
  }

  /** A datetime parameter in the form the driver stores (a Date for mysql2, UTC text for SQLite). */
  private datetime(value: Date): unknown {
    return this.dataSource.driver.preparePersistentValue(value, this.windowEnd());
  }

  private hydrated(value: unknown): Date {
    return this.dataSource.driver.prepareHydratedValue(value, this.windowEnd()) as Date;
  }

  private windowEnd(): ColumnMetadata {
    this.windowEndColumn ??= this.dataSource.getMetadata(RateLimitCounterSchema).findColumnWithPropertyName('windowEnd')!;
    return this.windowEndColumn;
  }
}

/** Keys are stored as their SHA-256: a fixed width, whatever a key holds. */
function counterKeyOf(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}
