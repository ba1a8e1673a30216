import { toAuditEventView } from '../../../../application/audit/audit-event.view';
import { AUDIT_EVENT_TYPE } from '../../../messaging/cloud-event';
import { toSqlDatetime } from '../../../messaging/outbox-claims';
import type { EntityManager } from 'typeorm';
import type { AuditTrail } from '../../../../application/ports/audit-trail.port';
import type { AuditEntry } from '../../../../domain/audit/audit-entry';
import { BatchedInsert } from '../batched-insert';
import type { SqliteWriteQueue } from '../sqlite-write-queue';
import { ENTRY_COLUMNS, entryValues } from './audit-rows';

const HEAD = `INSERT INTO audit_events (${ENTRY_COLUMNS.join(', ')}) VALUES `;
const ROW = `(${ENTRY_COLUMNS.map(() => '?').join(', ')})`;
const OUTBOX_HEAD = 'INSERT INTO outbox_events (id, aggregate_id, type, payload, occurred_at, published_at, attempts, request_id, aggregate_sequence) VALUES ';
const OUTBOX_ROW = '(?, ?, ?, ?, ?, NULL, 0, ?, 1)';

/**
 * Inserts entries through `manager`, and each one's event for the audit topic into the outbox beside it:
 * plain INSERTs, no counter or lock, so replicas write side by side. Each event is an aggregate of its own
 * (its id, sequence 1): no `event_sequences` row to take, and the relay needs no order between entries.
 */
export async function insertAuditEntries(manager: EntityManager, entries: readonly AuditEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const rows = (row: string) => new Array<string>(entries.length).fill(row).join(', ');
  await manager.query(HEAD + rows(ROW), entries.flatMap(entryValues));
  await manager.query(
    OUTBOX_HEAD + rows(OUTBOX_ROW),
    entries.flatMap((entry) => [entry.id, entry.id, AUDIT_EVENT_TYPE, JSON.stringify(toAuditEventView(entry)), toSqlDatetime(new Date(entry.occurredAt)), entry.requestId]),
  );
}

/** The trail inside a unit of work: entries commit or roll back with the transaction's change. */
export class TypeOrmAuditTrail implements AuditTrail {
  /** Entries written through this instance (one transaction's). */
  recorded = 0;

  constructor(private readonly manager: EntityManager) {}

  async record(entries: readonly AuditEntry[]): Promise<void> {
    await insertAuditEntries(this.manager, entries);
    this.recorded += entries.length;
  }
}

/**
 * The process-wide trail: entries written on their own (a token granted, a sign-in), each call's in a transaction
 * (taking its turn on SQLite's one connection). Calls made while one is being written go together in the next
 * transaction, a call's entries never split (batched-insert.ts): under load a token grant costs a share of two
 * multi-row INSERTs and a commit, not a transaction of its own. Each caller returns once its entries committed.
 */
export class StandaloneTypeOrmAuditTrail implements AuditTrail {
  private readonly batches: BatchedInsert<readonly AuditEntry[]>;

  constructor(private readonly deps: { manager: EntityManager; sqliteWriteQueue: SqliteWriteQueue; onEventsCommitted?: () => void }) {
    this.batches = new BatchedInsert((calls) =>
      this.deps.sqliteWriteQueue.serialize(() => this.deps.manager.transaction((manager) => insertAuditEntries(manager, calls.flat()))),
    );
  }

  async record(entries: readonly AuditEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await this.batches.insert(entries);
    this.deps.onEventsCommitted?.();
  }
}
