import type { EntityManager } from 'typeorm';
import type { Outbox } from '../../../application/ports/outbox.port';
import type { DomainEvent } from '../../../domain/shared/domain-event';
import { currentRequestId } from '../../observability/request-context';
import { plainInsertOf } from './plain-insert';
import { OutboxSchema } from './records';

/** Writes events through the transaction's manager, so they commit or roll back with the change. */
export class TypeOrmOutbox implements Outbox {
  /** Events appended through this instance (one transaction's). */
  appended = 0;

  constructor(private readonly manager: EntityManager) {}

  async append(events: readonly DomainEvent[]): Promise<void> {
    if (events.length === 0) return;
    this.appended += events.length;
    const requestId = currentRequestId() ?? null;
    await plainInsertOf(this.manager.connection, OutboxSchema)(
      this.manager,
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
