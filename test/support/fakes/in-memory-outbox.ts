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
  /** Its place among its aggregate's events, 1, 2, 3, …: numbered when its run commits, so in commit order. */
  readonly sequence: number;
}

type AppendedEvent = Omit<StoredEvent, 'sequence'>;

interface Faults {
  next: Error | null;
}

export class InMemoryOutbox implements Outbox {
  private stored: StoredEvent[] = [];
  /** The last number each aggregate was given (the adapter's `event_sequences`). */
  private lastSequences = new Map<string, number>();
  private readonly appendedHere: AppendedEvent[] = [];
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
    const rows = events.map(toAppended);
    for (const row of rows) {
      if (this.stored.some((e) => e.id === row.id)) throw new Error(`InMemoryOutbox: duplicate event id ${row.id}`);
    }
    // Held here at once (appended outside a run, it is committed); a run's events are numbered again when it commits.
    this.stored.push(...rows.map((row) => this.numbered(row, this.lastSequences)));
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
    copy.lastSequences = new Map(this.lastSequences);
    return copy;
  }

  /**
   * Numbers the transaction's events after what is committed by then, as the adapter's counter row
   * (locked until commit) does: of two runs appending for one aggregate, the one committing first
   * takes the lower numbers.
   */
  prepareCommit(transaction: InMemoryOutbox): () => void {
    const staged = [...this.stored];
    const lastSequences = new Map(this.lastSequences);
    for (const row of transaction.appendedHere) {
      if (staged.some((e) => e.id === row.id)) throw new Error(`InMemoryOutbox: duplicate event id ${row.id}`);
      staged.push(this.numbered(row, lastSequences));
    }
    return () => {
      this.stored = staged;
      this.lastSequences = lastSequences;
    };
  }

  close(): void {
    this.closed = true;
  }

  private numbered(row: AppendedEvent, lastSequences: Map<string, number>): StoredEvent {
    const sequence = (lastSequences.get(row.aggregateId) ?? 0) + 1;
    lastSequences.set(row.aggregateId, sequence);
    return Object.freeze({ ...row, sequence });
  }
}

function toAppended(event: DomainEvent): AppendedEvent {
  return {
    id: event.id,
    type: event.type,
    aggregateId: event.aggregateId,
    occurredAt: new Date(event.occurredAt),
    data: JSON.parse(JSON.stringify(event.data)) as Record<string, unknown>,
  };
}
