import type { DataSource } from 'typeorm';
import { describeError, type Logger } from '../logging/logger';
import { PROCESSED_EVENT_RETENTION_MS } from './consumer/mail-event-handler';
import { deleteExpiredSql, expiredSql, toSqlDatetime } from './outbox-claims';
import type { OutboxRelaySettings } from './outbox-relay-options';

export type OutboxRetentionSweeperOptions = Pick<OutboxRelaySettings, 'retention' | 'clock' | 'sqliteWriteQueue'> & {
  dataSource: DataSource;
  logger: Logger;
};

/**
 * Deletes published outbox rows once they are past the retention, never an unpublished row; and the mailer's records
 * of events handled (processed_events) once past theirs (PROCESSED_EVENT_RETENTION_MS): the mailer, wherever it runs,
 * writes them to the same database. Runs where the relay runs (RELAY_ENABLED, the default).
 */
export class OutboxRetentionSweeper {
  private readonly options: OutboxRetentionSweeperOptions;
  private nextSweepAt = 0;

  constructor(options: OutboxRetentionSweeperOptions) {
    this.options = options;
  }

  /** The next `sweepIfDue()` sweeps, whenever the last one was. */
  sweepNext(): void {
    this.nextSweepAt = 0;
  }

  /**
   * Sweeps when `retention.sweepIntervalMs` has passed on the clock since the last sweep, or `catchUpIntervalMs` since
   * one that stopped at its cap with rows left; a failure is logged, not thrown.
   */
  async sweepIfDue(): Promise<void> {
    const { clock, retention, logger } = this.options;
    const now = clock.now().getTime();
    if (now < this.nextSweepAt) return;
    this.nextSweepAt = now + retention.sweepIntervalMs;
    const cap = retention.deleteBatchSize * retention.maxBatchesPerSweep;
    let capped = false;
    try {
      capped = (await this.purgeExpired()) >= cap;
    } catch (error) {
      logger.warn({ reason: describeError(error) }, 'outbox retention sweep failed; retrying at the next sweep');
    }
    try {
      capped = (await this.purgeProcessedEvents()) >= cap || capped;
    } catch (error) {
      logger.warn({ reason: describeError(error) }, 'processed-events retention sweep failed; retrying at the next sweep');
    }
    if (capped) this.nextSweepAt = now + retention.catchUpIntervalMs;
  }

  /** Deletes published rows older than the retention, in bounded batches. Resolves to the rows deleted. */
  async purgeExpired(): Promise<number> {
    const { dataSource, sqliteWriteQueue, retention, clock, logger } = this.options;
    const cutoff = toSqlDatetime(new Date(clock.now().getTime() - retention.afterMs));
    let deleted = 0;
    for (let batch = 0; batch < retention.maxBatchesPerSweep; batch++) {
      const rows = await sqliteWriteQueue.serialize(() => dataSource.query(expiredSql(retention.deleteBatchSize), [cutoff]) as Promise<{ id: string }[]>);
      if (rows.length === 0) break;
      const ids = rows.map((row) => row.id);
      await sqliteWriteQueue.serialize(() => dataSource.query(deleteExpiredSql(ids.length), [cutoff, ...ids]));
      deleted += ids.length;
      if (rows.length < retention.deleteBatchSize) break;
    }
    if (deleted > 0) logger.info({ deleted }, 'deleted published outbox events past their retention');
    return deleted;
  }

  /** Deletes the records of events handled longer ago than PROCESSED_EVENT_RETENTION_MS, in bounded batches. Resolves to the rows deleted. */
  async purgeProcessedEvents(): Promise<number> {
    const { dataSource, sqliteWriteQueue, retention, clock, logger } = this.options;
    const cutoff = toSqlDatetime(new Date(clock.now().getTime() - PROCESSED_EVENT_RETENTION_MS));
    const limit = retention.deleteBatchSize;
    let deleted = 0;
    for (let batch = 0; batch < retention.maxBatchesPerSweep; batch++) {
      const rows = (await sqliteWriteQueue.serialize(() =>
        dataSource.query(`SELECT consumer, event_id FROM processed_events WHERE processed_at < ? ORDER BY processed_at LIMIT ${Math.trunc(limit)}`, [cutoff]),
      )) as { consumer: string; event_id: string }[];
      if (rows.length === 0) break;
      // Deleted by primary key, (consumer, event_id): a statement per consumer (there is one, the mailer) locks its rows only.
      const byConsumer = Map.groupBy(rows, (row) => row.consumer);
      for (const [consumer, batch] of byConsumer) {
        const ids = batch.map((row) => row.event_id);
        await sqliteWriteQueue.serialize(() =>
          dataSource.query(`DELETE FROM processed_events WHERE consumer = ? AND event_id IN (${ids.map(() => '?').join(', ')}) AND processed_at < ?`, [consumer, ...ids, cutoff]),
        );
      }
      deleted += rows.length;
      if (rows.length < limit) break;
    }
    if (deleted > 0) logger.info({ deleted }, 'deleted records of mail events handled past their retention');
    return deleted;
  }
}
