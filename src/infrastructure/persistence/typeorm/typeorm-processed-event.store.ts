import type { EntityManager } from 'typeorm';
import type { ProcessedEventStore } from '../../../application/ports/processed-event-store.port';
import { isMysqlFamily } from './data-source';
import { plainInsertOf } from './plain-insert';
import { ProcessedEventSchema } from './records';

export class TypeOrmProcessedEventStore implements ProcessedEventStore {
  constructor(
    private readonly manager: EntityManager,
    /** SQLite's one shared connection, outside a transaction: the write takes its turn (TypeOrmUnitOfWork.exclusive). */
    private readonly exclusive: <T>(work: () => Promise<T>) => Promise<T> = (work) => work(),
  ) {}

  async has(consumer: string, eventId: string): Promise<boolean> {
    const rows = (await this.manager.query('SELECT 1 AS found FROM processed_events WHERE consumer = ? AND event_id = ?', [consumer, eventId])) as unknown[];
    return rows.length > 0;
  }

  async record(consumer: string, eventId: string, at: Date): Promise<void> {
    // Recorded already (a redelivery raced us) is the state we want: the insert then does nothing.
    const ignoreTaken = isMysqlFamily(this.manager.connection) ? ' ON DUPLICATE KEY UPDATE consumer = consumer' : ' ON CONFLICT DO NOTHING';
    await this.exclusive(() =>
      plainInsertOf(this.manager.connection, ProcessedEventSchema)(this.manager, [{ consumer, eventId, processedAt: at }], ignoreTaken),
    );
  }
}
