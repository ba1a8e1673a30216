import type { DataSource } from 'typeorm';
import { fromSqlDatetime } from '../messaging/outbox-claims';
import type { SqliteWriteQueue } from '../persistence/typeorm/sqlite-write-queue';
import { BACKLOG_COUNTED_UP_TO, type OutboxBacklogProbe } from './service-metrics';

/**
 * Two index-only lookups per scrape: the count (up to `countUpTo`) and smallest id of unpublished rows
 * (ix_outbox_pending on published_at, id), then that row's occurred_at by primary key.
 * On SQLite the statements take their turn on the one connection through the write queue.
 */
export function outboxBacklogProbe(dataSource: DataSource, sqliteWriteQueue: SqliteWriteQueue, countUpTo = BACKLOG_COUNTED_UP_TO): OutboxBacklogProbe {
  const pending = 'FROM outbox_events WHERE published_at IS NULL';
  const sql = `SELECT (SELECT COUNT(*) FROM (SELECT 1 AS one ${pending} LIMIT ?) counted) AS backlog, (SELECT MIN(id) ${pending}) AS oldest_id`;
  return async () => {
    if (!dataSource.isInitialized) throw new Error('database not connected');
    const [head] = (await sqliteWriteQueue.serialize(() => dataSource.query(sql, [countUpTo]))) as { backlog: number | string; oldest_id: string | null }[];
    const backlog = Number(head?.backlog ?? 0);
    if (!head?.oldest_id) return { backlog, oldest: null };
    const [row] = (await sqliteWriteQueue.serialize(() =>
      dataSource.query('SELECT occurred_at FROM outbox_events WHERE id = ?', [head.oldest_id]),
    )) as { occurred_at: Date | string }[];
    return { backlog, oldest: row ? fromSqlDatetime(row.occurred_at) : null };
  };
}

/** mysql2's pool counters (private fields, read defensively); null on SQLite or another driver version. */
export function mysqlPoolProbe(dataSource: DataSource): () => { total: number; idle: number; waiting: number } | null {
  return () => {
    const pool = (dataSource.driver as { pool?: Record<string, unknown> }).pool;
    const all = pool?._allConnections as { length?: number } | undefined;
    const free = pool?._freeConnections as { length?: number } | undefined;
    const queue = pool?._connectionQueue as { length?: number } | undefined;
    if (typeof all?.length !== 'number' || typeof free?.length !== 'number') return null;
    return { total: all.length, idle: free.length, waiting: typeof queue?.length === 'number' ? queue.length : 0 };
  };
}
