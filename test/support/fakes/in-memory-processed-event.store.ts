import type { ProcessedEventStore } from '../../../src/application/ports/processed-event-store.port';
import { TransactionalFake } from './transactional-fake';

export interface ProcessedEvent {
  readonly consumer: string;
  readonly eventId: string;
  readonly at: Date;
}

/**
 * Keyed by (consumer, event id), as the table's primary key. Recording an event twice keeps the
 * first record and does not fail: the real store swallows the unique violation of a redelivery.
 */
export class InMemoryProcessedEventStore extends TransactionalFake implements ProcessedEventStore {
  private rows = new Map<string, ProcessedEvent>();
  private readonly recordedHere: ProcessedEvent[] = [];

  async has(consumer: string, eventId: string): Promise<boolean> {
    await this.io();
    return this.rows.has(key(consumer, eventId));
  }

  async record(consumer: string, eventId: string, at: Date): Promise<void> {
    await this.io();
    const row = Object.freeze({ consumer, eventId, at: new Date(at) });
    recordIn(this.rows, row);
    this.recordedHere.push(row);
  }

  // ---- inspection, for assertions (synchronous: not part of the port) ----

  /** Arranges an event as handled already, without a transaction (test setup only). */
  seed(consumer: string, eventId: string, at: Date = new Date(0)): void {
    recordIn(this.rows, Object.freeze({ consumer, eventId, at: new Date(at) }));
  }

  isRecorded(consumer: string, eventId: string): boolean {
    return this.rows.has(key(consumer, eventId));
  }

  all(): ProcessedEvent[] {
    return [...this.rows.values()].map((r) => ({ ...r, at: new Date(r.at) }));
  }

  get count(): number {
    return this.rows.size;
  }

  // ---- transactions, driven by InMemoryUnitOfWork ----

  beginTransaction(): InMemoryProcessedEventStore {
    const transaction = new InMemoryProcessedEventStore();
    transaction.rows = new Map(this.rows);
    return transaction;
  }

  prepareCommit(transaction: InMemoryProcessedEventStore): () => void {
    const staged = new Map(this.rows);
    for (const row of transaction.recordedHere) recordIn(staged, row);
    return () => {
      this.rows = staged;
    };
  }


}

function key(consumer: string, eventId: string): string {
  return JSON.stringify([consumer, eventId]);
}

function recordIn(rows: Map<string, ProcessedEvent>, row: ProcessedEvent): void {
  const k = key(row.consumer, row.eventId);
  if (!rows.has(k)) rows.set(k, row);
}
