import type { EntityManager } from 'typeorm';
import type { AuditTrail } from '../../../../application/ports/audit-trail.port';
import type { AuditEntry } from '../../../../domain/audit/audit-entry';
import { BatchedInsert } from '../batched-insert';
import type { SqliteWriteQueue } from '../sqlite-write-queue';
import { ENTRY_COLUMNS, entrySeal, entryValues } from './audit-rows';
import { entrySealKeyOf } from './entry-seal-keys';

const HEAD = `INSERT INTO audit_events (${ENTRY_COLUMNS.join(', ')}, entry_seal) VALUES `;
const ROW = `(${ENTRY_COLUMNS.map(() => '?').join(', ')}, ?)`;
/**
 * Inserts entries through `manager`: one plain multi-row INSERT, no counter or lock, so replicas write side by side,
 * and atomic on its own, so an entry written alone needs no transaction. Their events for the audit topic are the
 * sealer's to put in the outbox, in the transaction that links them (audit-sealer.ts): the trail is the outbox of
 * its own events, and a request writes one row per entry, not two. With AUDIT_SEAL_KEY (kept with the data source:
 * entry-seal-keys.ts) each row carries its seal, without which the sealer will not link it.
 */
export async function insertAuditEntries(manager: EntityManager, entries: readonly AuditEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const key = entrySealKeyOf(manager.connection);
  const rows = entries.flatMap((entry) => {
    const values = entryValues(entry);
    return [...values, key ? entrySeal(values, key) : null];
  });
  await manager.query(HEAD + new Array<string>(entries.length).fill(ROW).join(', '), rows);
}

/** The trail inside a unit of work: entries commit or roll back with the transaction's change. */
export class TypeOrmAuditTrail implements AuditTrail {
  constructor(private readonly manager: EntityManager) {}

  async record(entries: readonly AuditEntry[]): Promise<void> {
    await insertAuditEntries(this.manager, entries);
  }
}

/**
 * The process-wide trail: entries written on their own (a token granted, a sign-in), each call's in one INSERT
 * statement, committed alone (taking its turn on SQLite's one connection). Calls made while one is being written go
 * together in the next statement, a call's entries never split (batched-insert.ts): under load a token grant costs a
 * share of one multi-row INSERT. Each caller returns once its entries committed.
 */
export class StandaloneTypeOrmAuditTrail implements AuditTrail {
  private readonly batches: BatchedInsert<readonly AuditEntry[]>;

  constructor(private readonly deps: { manager: EntityManager; sqliteWriteQueue: SqliteWriteQueue }) {
    this.batches = new BatchedInsert((calls) => this.deps.sqliteWriteQueue.serialize(() => insertAuditEntries(this.deps.manager, calls.flat())));
  }

  async record(entries: readonly AuditEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await this.batches.insert(entries);
  }
}
