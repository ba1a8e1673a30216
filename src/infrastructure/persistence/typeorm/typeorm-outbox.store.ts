import type { EntityManager } from 'typeorm';
import type { Outbox } from '../../../application/ports/outbox.port';
import type { DomainEvent } from '../../../domain/shared/domain-event';
import { currentRequestId } from '../../observability/request-context';
import { isMysqlFamily } from './data-source';
import type { PlainInsertStatements } from './plain-insert-statements';
import { OutboxSchema } from './records';

/**
 * Writes events through the transaction's manager, so they commit or roll back with the change.
 *
 * Each event gets the next number of its aggregate (`event_sequences`, one row per user or role),
 * taken by an upsert that holds that row's lock until the transaction ends: a second transaction
 * appending for the same aggregate waits for the first to commit (or roll back) before it takes
 * its number. So an aggregate's numbers follow commit order, with no gap, whatever clock each
 * replica has; the relay publishes in that order (docs/DECISIONS.md, "Event order (#22)").
 */
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
    const sequences = await this.takeSequences(events);
    this.appended += events.length;
    const requestId = currentRequestId() ?? null;
    await this.inserts.insert(
      this.manager,
      OutboxSchema,
      events.map((event, i) => ({
        id: event.id,
        aggregateId: event.aggregateId,
        type: event.type,
        payload: JSON.stringify(event.data),
        occurredAt: event.occurredAt,
        publishedAt: null,
        attempts: 0,
        requestId,
        aggregateSequence: sequences[i]!,
      })),
    );
  }

  /** The number of each event, in the order given; aggregates locked in id order, so two transactions never wait on each other in a circle. */
  private async takeSequences(events: readonly DomainEvent[]): Promise<number[]> {
    const counts = new Map<string, number>();
    for (const event of events) counts.set(event.aggregateId, (counts.get(event.aggregateId) ?? 0) + 1);
    const next = new Map<string, number>();
    for (const aggregateId of [...counts.keys()].sort()) {
      const count = counts.get(aggregateId)!;
      next.set(aggregateId, (await this.reserve(aggregateId, count)) - count + 1);
    }
    return events.map((event) => {
      const n = next.get(event.aggregateId)!;
      next.set(event.aggregateId, n + 1);
      return n;
    });
  }

  /** Moves the aggregate's counter on by `count` and answers its new value, in one statement. */
  private async reserve(aggregateId: string, count: number): Promise<number> {
    const insert = 'INSERT INTO event_sequences (aggregate_id, last_sequence) VALUES (?, ?)';
    if (isMysqlFamily(this.manager.connection)) {
      // No RETURNING on MySQL: LAST_INSERT_ID(expr) hands the new value back as the statement's insert id.
      const result = (await this.manager.query(`${insert} ON DUPLICATE KEY UPDATE last_sequence = LAST_INSERT_ID(last_sequence + ?)`, [
        aggregateId,
        count,
        count,
      ])) as { affectedRows: number; insertId: number | string };
      // One affected row: the aggregate's first events. Two: moved on, and the insert id is the new value.
      const last = result.affectedRows === 1 ? count : Number(result.insertId);
      if (!(last >= count)) throw new Error(`event sequence upsert answered no value (affected ${result.affectedRows}, insert id ${result.insertId})`);
      return last;
    }
    const [row] = (await this.manager.query(
      `${insert} ON CONFLICT (aggregate_id) DO UPDATE SET last_sequence = last_sequence + excluded.last_sequence RETURNING last_sequence`,
      [aggregateId, count],
    )) as { last_sequence: number | string }[];
    return Number(row!.last_sequence);
  }
}
