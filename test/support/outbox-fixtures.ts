import { v7 } from 'uuid';
import type { DataSource } from 'typeorm';
import { SEEDED_ROLES } from '../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';

/** The user every fixture invitation comes from. */
export const INVITER_ID = '019a0000-0000-7000-8000-000000000001';

/** An outbox row to insert as is (times in UTC). */
export interface OutboxFixtureRow {
  id: string;
  aggregateId: string;
  type: string;
  payload: string;
  occurredAt: Date;
  publishedAt?: Date | null;
  attempts?: number;
}

/** `2026-01-31 12:00:00.123`: how DATETIME(3) values are written on MySQL, MariaDB and SQLite alike. */
export function sqlDatetime(date: Date): string {
  return date.toISOString().replace('T', ' ').replace('Z', '');
}

/** Inserts rows with multi-row INSERTs (`chunkSize` rows per statement). */
export async function insertOutboxRows(dataSource: DataSource, rows: readonly OutboxFixtureRow[], chunkSize = 500): Promise<void> {
  for (let start = 0; start < rows.length; start += chunkSize) {
    const chunk = rows.slice(start, start + chunkSize);
    const values = chunk.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ');
    const parameters = chunk.flatMap((row) => [
      row.id,
      row.aggregateId,
      row.type,
      row.payload,
      sqlDatetime(row.occurredAt),
      row.publishedAt ? sqlDatetime(row.publishedAt) : null,
      row.attempts ?? 0,
    ]);
    await dataSource.query(
      `INSERT INTO outbox_events (id, aggregate_id, type, payload, occurred_at, published_at, attempts) VALUES ${values}`,
      parameters,
    );
  }
}

/**
 * `eventsPerUser` UserInvited-shaped rows for each of `users` users, interleaved across users
 * (user 0 event 0, user 1 event 0, …, user 0 event 1, …). Ids are UUIDv7 taken in that order,
 * so id order is creation order. Payloads are what the domain writes: no secret.
 */
export function interleavedRows(users: number, eventsPerUser: number, at: Date = new Date()): OutboxFixtureRow[] {
  const userIds = Array.from({ length: users }, () => v7());
  const rows: OutboxFixtureRow[] = [];
  for (let n = 0; n < eventsPerUser; n++) {
    userIds.forEach((userId, u) => rows.push(invitedRow(userId, at, `user${u}.event${n}@example.com`)));
  }
  return rows;
}

/**
 * `count` UserInvited-shaped rows over `users` users, each row's user picked at random (as
 * commits of many users arrive), every user at least once. Ids are UUIDv7 in row order.
 */
export function randomUserRows(users: number, count: number, at: Date = new Date()): OutboxFixtureRow[] {
  const userIds = Array.from({ length: users }, () => v7());
  return Array.from({ length: count }, (_, i) => {
    const userId = i < users ? userIds[i]! : userIds[Math.floor(Math.random() * users)]!;
    return invitedRow(userId, at, `user.${userId.slice(-8)}.${i}@example.com`);
  });
}

export function invitedRow(userId: string, at: Date, email = `${userId.slice(-12)}@example.com`): OutboxFixtureRow {
  return {
    id: v7(),
    aggregateId: userId,
    type: 'UserInvited',
    payload: JSON.stringify({
      user_id: userId,
      email,
      role: { _id: SEEDED_ROLES.member, name: 'member' },
      invited_by: INVITER_ID,
      invited_date: at.toISOString(),
    }),
    occurredAt: at,
  };
}

export async function outboxCounts(dataSource: DataSource): Promise<{ total: number; unpublished: number }> {
  const [row] = (await dataSource.query(
    'SELECT COUNT(*) AS total, SUM(CASE WHEN published_at IS NULL THEN 1 ELSE 0 END) AS unpublished FROM outbox_events',
  )) as { total: number | string; unpublished: number | string | null }[];
  return { total: Number(row?.total ?? 0), unpublished: Number(row?.unpublished ?? 0) };
}
