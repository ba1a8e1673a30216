import type { EntityManager } from 'typeorm';
import type { ProcessedEventStore } from '../../../application/ports/processed-event-store.port';
import { isMysqlFamily } from './data-source';
import type { PlainInsertStatements } from './plain-insert-statements';
import { ProcessedEventSchema } from './records';
import type { SqliteWriteQueue } from './sqlite-write-queue';

export interface TypeOrmProcessedEventStoreDeps {
  /** The data source's manager, or a transaction's. */
  manager: EntityManager;
  plainInsertStatements: PlainInsertStatements;
  sqliteWriteQueue: SqliteWriteQueue;
}

export class TypeOrmProcessedEventStore implements ProcessedEventStore {
  private readonly manager: EntityManager;
  private readonly inserts: PlainInsertStatements;
  private readonly sqliteWriteQueue: SqliteWriteQueue;

  constructor(deps: TypeOrmProcessedEventStoreDeps) {
    this.manager = deps.manager;
    this.inserts = deps.plainInsertStatements;
    this.sqliteWriteQueue = deps.sqliteWriteQueue;
  }

  async has(consumer: string, eventId: string): Promise<boolean> {
    const rows = (await this.manager.query('SELECT 1 AS found FROM processed_events WHERE consumer = ? AND event_id = ?', [consumer, eventId])) as unknown[];
    return rows.length > 0;
  }

  async record(consumer: string, eventId: string, at: Date): Promise<void> {
    // Recorded already (a redelivery raced us) is the state we want: the insert then does nothing.
    const ignoreTaken = isMysqlFamily(this.manager.connection) ? ' ON DUPLICATE KEY UPDATE consumer = consumer' : ' ON CONFLICT DO NOTHING';
    const insert = () => this.inserts.insert(this.manager, ProcessedEventSchema, [{ consumer, eventId, processedAt: at }], ignoreTaken);
    await this.sqliteWriteQueue.outside(this.manager, insert);
  }
}
