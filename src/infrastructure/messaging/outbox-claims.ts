import type { OutboxMessage } from './cloud-event';

/**
 * The relay's SQL, portable across MySQL 8, MariaDB 10.6+ and SQLite: `?` placeholders,
 * datetimes as UTC `YYYY-MM-DD HH:MM:SS.mmm` literals (what TypeORM writes), no `DELETE … LIMIT`.
 */

/** Raw row of the claim query, as mysql2 (Date) or SQLite (text) returns it. */
export interface OutboxRow {
  id: string;
  aggregate_id: string;
  type: string;
  payload: string;
  occurred_at: Date | string;
  attempts: number | string;
  request_id?: string | null;
  aggregate_sequence?: number | string | null;
}

/** A row's place in its aggregate's order; 0 (before every number) for a row written before numbers existed. */
const MINE = 'COALESCE(o.aggregate_sequence, 0)';
const THEIRS = 'COALESCE(o2.aggregate_sequence, 0)';

/**
 * The oldest unpublished rows that are each the first unpublished row of their aggregate (user or
 * role) in its sequence: `aggregate_sequence`, numbered by the database in commit order (see
 * TypeOrmOutbox), not the id, which is a UUIDv7 from the clock of whichever replica wrote it. Rows
 * written by an older version have no number and come first, in id order among themselves.
 * A user's next event becomes claimable only once the one before it is marked published, which
 * happens only after the publisher acknowledged it: one user's events reach the topic in order even
 * with several relays. Across users the batch is in id order (ix_outbox_pending); the check reads
 * ix_outbox_aggregate_sequence.
 *
 * With `skipLocked` (MySQL/MariaDB, inside a transaction) the rows are locked until the
 * transaction ends and rows another relay holds are skipped; the NOT EXISTS subquery is a plain
 * read, so a row held by another relay still counts as unpublished and blocks its successors.
 */
export function claimSql(limit: number, skipLocked: boolean): string {
  assertPositiveInteger(limit, 'limit');
  return (
    'SELECT o.id, o.aggregate_id, o.type, o.payload, o.occurred_at, o.attempts, o.request_id, o.aggregate_sequence FROM outbox_events o ' +
    'WHERE o.published_at IS NULL AND NOT EXISTS (' +
    'SELECT 1 FROM outbox_events o2 WHERE o2.aggregate_id = o.aggregate_id AND o2.published_at IS NULL AND (' +
    `${THEIRS} < ${MINE} OR (${THEIRS} = ${MINE} AND o2.id < o.id))` +
    `) ORDER BY o.id LIMIT ${limit}` +
    (skipLocked ? ' FOR UPDATE SKIP LOCKED' : '')
  );
}

/** Marks claimed rows published (and counts the attempt). Parameters: published_at, then the ids. */
export function markPublishedSql(count: number): string {
  return `UPDATE outbox_events SET published_at = ?, attempts = attempts + 1 WHERE id IN (${placeholders(count)}) AND published_at IS NULL`;
}

/** Counts a failed attempt on rows that stay unpublished. Parameters: the ids. */
export function countFailedAttemptSql(count: number): string {
  return `UPDATE outbox_events SET attempts = attempts + 1 WHERE id IN (${placeholders(count)}) AND published_at IS NULL`;
}

/** Ids of published rows older than the cutoff, oldest first. Parameter: the cutoff. */
export function expiredSql(limit: number): string {
  assertPositiveInteger(limit, 'limit');
  return `SELECT id FROM outbox_events WHERE published_at IS NOT NULL AND published_at < ? ORDER BY published_at LIMIT ${limit}`;
}

/** Deletes the given rows, re-checking they are published and expired. Parameters: the cutoff, then the ids. */
export function deleteExpiredSql(count: number): string {
  return `DELETE FROM outbox_events WHERE published_at IS NOT NULL AND published_at < ? AND id IN (${placeholders(count)})`;
}

/** A UTC datetime literal that reads the same on the three databases: `2026-01-31 12:00:00.123`. */
export function toSqlDatetime(date: Date): string {
  return date.toISOString().replace('T', ' ').replace('Z', '');
}

/** A DATETIME(3) read back: a Date from mysql2 (timezone 'Z'), UTC text from SQLite. */
export function fromSqlDatetime(value: Date | string): Date {
  if (value instanceof Date) return value;
  const iso = value.includes('T') ? value : value.replace(' ', 'T');
  return new Date(/(?:Z|[+-]\d{2}:?\d{2})$/.test(iso) ? iso : `${iso}Z`);
}

export function toOutboxMessage(row: OutboxRow): OutboxMessage {
  return {
    id: row.id,
    aggregateId: row.aggregate_id,
    type: row.type,
    payload: row.payload,
    occurredAt: fromSqlDatetime(row.occurred_at),
    requestId: row.request_id ?? null,
    sequence: row.aggregate_sequence === null || row.aggregate_sequence === undefined ? null : Number(row.aggregate_sequence),
  };
}

function placeholders(count: number): string {
  assertPositiveInteger(count, 'count');
  return new Array<string>(count).fill('?').join(', ');
}

function assertPositiveInteger(value: number, name: string): void {
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer (got ${value})`);
}
