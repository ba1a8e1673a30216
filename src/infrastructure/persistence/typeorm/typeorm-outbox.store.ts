import type { EntityManager } from 'typeorm';
import type { Outbox } from '../../../application/ports/outbox.port';
import type { DomainEvent } from '../../../domain/shared/domain-event';
import { currentRequestId } from '../../observability/request-context';
import type { PlainInsertStatements } from './plain-insert-statements';
import { OutboxSchema } from './records';

/** Writes events through the transaction's manager, so they commit or roll back with the change. */
export class TypeOrmOutbox implements Outbox {
  /** Events appended through this instance (one transaction's). */
  appended = 0;

  private readonly manager: EntityManager;
  private readonly inserts: PlainInsertStatements;

  constructor(deps: { manager: EntityManager; plainInsertStatements: PlainInsertStatements }) {
    this.manager = deps.manager;
    this.inserts = deps.plainInsertStatements;
  }

  async append(events: readonly DomainEvent[]): Promise<void> {
    if (events.length === 0) return;
    this.appended += events.length;
    const requestId = currentRequestId() ?? null;
    await this.inserts.insert(
      this.manager,
      OutboxSchema,
      events.map((event) => ({
        id: event.id,
        aggregateId: event.aggregateId,
        type: event.type,
        payload: JSON.stringify(event.data),
        occurredAt: event.occurredAt,
        publishedAt: null,
        attempts: 0,
        requestId,
      })),
    );
  }
}
