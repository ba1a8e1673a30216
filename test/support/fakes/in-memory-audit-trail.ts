import type { AuditFilter, AuditLog, AuditPage, AuditPosition, AuditTrail } from '../../../src/application/ports/audit-trail.port';
import type { AuditEntry } from '../../../src/domain/audit/audit-entry';
import { TransactionalFake } from './transactional-fake';

/**
 * The audit trail and its reading side in memory: a transaction's copy holds its entries until its
 * unit of work commits (prepareCommit), as the table does. Held to the TypeORM adapter by
 * test/contract/audit-trail.contract.ts.
 */
export class InMemoryAuditTrail extends TransactionalFake implements AuditTrail, AuditLog {
  private stored: AuditEntry[] = [];
  private readonly recordedHere: AuditEntry[] = [];

  async record(entries: readonly AuditEntry[]): Promise<void> {
    await this.io();
    // Through JSON, as the table's columns are.
    const copies = entries.map((entry) => JSON.parse(JSON.stringify(entry)) as AuditEntry);
    for (const entry of copies) if (this.stored.some((e) => e.id === entry.id)) throw new Error(`InMemoryAuditTrail: duplicate id ${entry.id}`);
    this.stored.push(...copies);
    this.recordedHere.push(...copies);
  }

  /** What is committed, in the order written. */
  get entries(): readonly AuditEntry[] {
    return [...this.stored];
  }

  async page(filter: AuditFilter, pageSize: number, after?: AuditPosition): Promise<AuditPage> {
    await this.io();
    const matching = this.stored
      .filter((entry) => matches(entry, filter))
      .filter((entry) => !after || entry.occurredAt < after.occurredAt || (entry.occurredAt === after.occurredAt && entry.id < after.id))
      .sort((a, b) => b.occurredAt - a.occurredAt || (b.id < a.id ? -1 : b.id > a.id ? 1 : 0));
    const entries = matching.slice(0, pageSize);
    const last = entries[entries.length - 1];
    return matching.length > pageSize && last ? { entries, next: { occurredAt: last.occurredAt, id: last.id } } : { entries };
  }

  async *export(filter: AuditFilter): AsyncIterable<AuditEntry> {
    await this.io();
    const matching = this.stored
      .filter((entry) => matches(entry, filter))
      .sort((a, b) => a.occurredAt - b.occurredAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    for (const entry of matching) yield entry;
  }

  // ---- transactions, driven by InMemoryUnitOfWork ----

  beginTransaction(): InMemoryAuditTrail {
    const copy = new InMemoryAuditTrail();
    copy.stored = [...this.stored];
    return copy;
  }

  prepareCommit(transaction: InMemoryAuditTrail): () => void {
    for (const entry of transaction.recordedHere) {
      if (this.stored.some((e) => e.id === entry.id)) throw new Error(`InMemoryAuditTrail: duplicate id ${entry.id}`);
    }
    return () => {
      this.stored.push(...transaction.recordedHere);
    };
  }
}

function matches(entry: AuditEntry, filter: AuditFilter): boolean {
  return (
    (filter.actorId === undefined || entry.actor.id === filter.actorId) &&
    (filter.targetId === undefined || entry.target?.id === filter.targetId) &&
    (filter.actionPrefix === undefined || entry.action.startsWith(filter.actionPrefix)) &&
    (filter.outcome === undefined || entry.outcome === filter.outcome) &&
    (filter.from === undefined || entry.occurredAt >= filter.from) &&
    (filter.to === undefined || entry.occurredAt < filter.to) &&
    (filter.requestId === undefined || entry.requestId === filter.requestId)
  );
}
