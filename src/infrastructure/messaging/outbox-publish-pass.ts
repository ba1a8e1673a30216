import type { DataSource, QueryRunner } from 'typeorm';
import type { Logger } from '../logging/logger';
import { ClockAlarm } from '../system/clock-alarm';
import { AUDIT_EVENT_TYPE, type CloudEvent, type EventPublisher, MalformedOutboxPayloadError, toCloudEvent } from './cloud-event';
import { claimSql, countFailedAttemptSql, markPublishedSql, type OutboxRow, toOutboxMessage, toSqlDatetime } from './outbox-claims';
import type { OutboxRelaySettings } from './outbox-relay-options';

export interface PassOutcome {
  published: number;
  /** Of those, events other than audit entries (someone may be waiting on them: the loop lingers less). */
  userEvents?: number;
  /** The claim came back full: more rows are probably waiting. */
  full?: boolean;
  failure?: unknown;
}

export type OutboxPublishPassOptions = Pick<
  OutboxRelaySettings,
  'source' | 'batchSize' | 'publishTimeoutMs' | 'pollIntervalMs' | 'clock' | 'lockRows' | 'sqliteWriteQueue'
> & {
  dataSource: DataSource;
  publisher: EventPublisher;
  logger: Logger;
};

type Execute = (sql: string, parameters?: unknown[]) => Promise<unknown>;

/**
 * One pass of the relay: claims a batch, publishes it, marks it published.
 *
 * - MySQL/MariaDB: the claim is `SELECT … FOR UPDATE SKIP LOCKED` in a READ COMMITTED transaction
 *   that stays open while the batch is published and marked, so several relays (one per replica)
 *   never publish the same row in normal operation. Only the oldest unpublished row of each user is
 *   claimable (see `claimSql`), so one user's events are published in order.
 * - SQLite (the embedded default, one process): the same query without locks, one statement at a
 *   time through the SQLite write queue, and no transaction held while publishing.
 *
 * Passes never overlap: whoever asks (the loop, `flush()`, `drainOnce()`) takes a turn.
 */
export class OutboxPublishPass {
  private readonly options: OutboxPublishPassOptions;
  private queue: Promise<unknown> = Promise.resolve();
  private publishedTotal = 0;

  constructor(options: OutboxPublishPassOptions) {
    this.options = options;
  }

  /** Events published since this relay was created. */
  get published(): number {
    return this.publishedTotal;
  }

  /** Resolves to what the pass published, or to its failure: it never rejects. */
  run(): Promise<PassOutcome> {
    const work = () => this.pass();
    const result = this.queue.then(work, work);
    this.queue = result.catch(() => undefined);
    return result;
  }

  private async pass(): Promise<PassOutcome> {
    try {
      return this.options.lockRows ? await this.passWithRowLocks() : await this.passOnSingleConnection();
    } catch (error) {
      return { published: 0, failure: error };
    }
  }

  private async passWithRowLocks(): Promise<PassOutcome> {
    const runner: QueryRunner = this.options.dataSource.createQueryRunner();
    try {
      await runner.connect();
      await runner.startTransaction('READ COMMITTED');
      try {
        const rows = (await runner.query(claimSql(this.options.batchSize, true))) as OutboxRow[];
        const outcome = await this.publishClaimed(rows, (sql, parameters) => runner.query(sql, parameters));
        await runner.commitTransaction();
        return outcome;
      } catch (error) {
        if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
        throw error;
      }
    } finally {
      await runner.release();
    }
  }

  private async passOnSingleConnection(): Promise<PassOutcome> {
    const { dataSource, sqliteWriteQueue } = this.options;
    const execute: Execute = (sql, parameters) => sqliteWriteQueue.serialize(() => dataSource.query(sql, parameters));
    const rows = (await execute(claimSql(this.options.batchSize, false))) as OutboxRow[];
    return this.publishClaimed(rows, execute);
  }

  /** Publishes the claimed rows and marks them; a failed publish counts an attempt and is reported, not thrown. */
  private async publishClaimed(rows: OutboxRow[], execute: Execute): Promise<PassOutcome> {
    if (rows.length === 0) return { published: 0 };
    const { logger } = this.options;
    const full = rows.length >= this.options.batchSize;
    const events: CloudEvent[] = [];
    const malformed: OutboxRow[] = [];
    let userEvents = 0;
    for (const row of rows) {
      try {
        events.push(toCloudEvent(toOutboxMessage(row), this.options.source));
        if (row.type !== AUDIT_EVENT_TYPE) userEvents++;
      } catch (error) {
        if (!(error instanceof MalformedOutboxPayloadError)) throw error;
        malformed.push(row);
      }
    }
    // Left unpublished: only this user's later events wait behind it (they are not claimable).
    // Said once, at error, when first seen (attempts still 0); later passes skip it quietly.
    const firstSeen = malformed.filter((row) => Number(row.attempts) === 0);
    if (firstSeen.length > 0) {
      logger.error(
        { events: firstSeen.map((row) => ({ id: row.id, type: row.type })) },
        'outbox events with a payload that is not a JSON object; their users\' later events are held back',
      );
      await execute(countFailedAttemptSql(firstSeen.length), firstSeen.map((row) => row.id));
    }
    if (malformed.length > firstSeen.length) logger.debug({ count: malformed.length - firstSeen.length }, 'malformed outbox events skipped');
    if (events.length === 0) return { published: 0, full };

    const ids = events.map((event) => event.id);
    try {
      await this.publishWithTimeout(events);
    } catch (failure) {
      await execute(countFailedAttemptSql(ids.length), ids);
      return { published: 0, full, failure };
    }
    await execute(markPublishedSql(ids.length), [toSqlDatetime(this.options.clock.now()), ...ids]);
    this.publishedTotal += ids.length;
    logger.debug({ count: ids.length }, 'outbox events published');
    return { published: ids.length, userEvents, full };
  }

  private publishWithTimeout(events: CloudEvent[]): Promise<void> {
    const { clock, publishTimeoutMs, pollIntervalMs } = this.options;
    const publishing = this.options.publisher.publish(events);
    publishing.catch(() => undefined); // settles after the timeout sometimes; never unhandled
    const alarm = new ClockAlarm(clock, clock.now().getTime() + publishTimeoutMs, pollIntervalMs);
    const timeout = alarm.rung.then((): never => {
      throw new PublishTimeoutError(publishTimeoutMs);
    });
    return Promise.race([publishing, timeout]).finally(() => alarm.cancel());
  }
}

export class PublishTimeoutError extends Error {
  constructor(ms: number) {
    super(`publish did not settle within ${ms} ms`);
    this.name = 'PublishTimeoutError';
  }
}
