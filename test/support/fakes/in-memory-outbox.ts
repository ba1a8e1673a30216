import type { Outbox } from '../../../src/application/ports/outbox.port';
import type { DomainEvent } from '../../../src/domain/shared/domain-event';
import { ioBoundary } from './io-boundary';

/** An event as the outbox table holds it: `data` went through JSON, like the real payload column. */
export interface StoredEvent {
  readonly id: string;
  readonly type: string;
  readonly aggregateId: string;
  readonly occurredAt: Date;
  readonly data: Record<string, unknown>;
}

interface Faults {
  next: Error | null;
}

export class InMemoryOutbox implements Outbox {
  private stored: StoredEvent[] = [];
  private readonly appendedHere: StoredEvent[] = [];
  private closed = false;

  /** `faults` is shared with transactional copies, so a failure armed here hits the next append anywhere. */
  constructor(private readonly faults: Faults = { next: null }) {}

  async append(events: readonly DomainEvent[]): Promise<void> {
    await ioBoundary();
    if (this.closed) throw new Error('InMemoryOutbox: used after its transaction ended');
    const fault = this.faults.next;
    if (fault) {
      this.faults.next = null;
      throw fault;
    }
    const rows = events.map(toStored);
    for (const row of rows) {
      if (this.stored.some((e) => e.id === row.id)) throw new Error(`InMemoryOutbox: duplicate event id ${row.id}`);
    }
    this.stored.push(...rows);
    this.appendedHere.push(...rows);
  }

  /** Makes the next `append` fail with `error`, e.g. to prove a unit of work rolls back. */
  failNextAppendWith(error: Error): void {
    this.faults.next = error;
  }

  /** What has been committed, in order. */
  get events(): readonly StoredEvent[] {
    return [...this.stored];
  }

  // ---- transactions, driven by InMemoryUnitOfWork ----

  beginTransaction(): InMemoryOutbox {
    const copy = new InMemoryOutbox(this.faults);
    copy.stored = [...this.stored];
    return copy;
  }

  prepareCommit(transaction: InMemoryOutbox): () => void {
    const staged = [...this.stored];
    for (const row of transaction.appendedHere) {
      if (staged.some((e) => e.id === row.id)) throw new Error(`InMemoryOutbox: duplicate event id ${row.id}`);
      staged.push(row);
    }
    return () => {
      this.stored = staged;
    };
  }

  close(): void {
    this.closed = true;
  }
}

function toStored(event: DomainEvent): StoredEvent {
  return Object.freeze({
    id: event.id,
    type: event.type,
    aggregateId: event.aggregateId,
    occurredAt: new Date(event.occurredAt),
    data: JSON.parse(JSON.stringify(event.data)) as Record<string, unknown>,
  });
}
