/**
 * The mailer's records of events handled (processed_events) go once past their retention, on every database: a mail
 * event that old is not mailed again (mail-event-handler.ts), so nothing a redelivery could find is lost.
 */
import { PROCESSED_EVENT_RETENTION_MS } from '../../../src/infrastructure/messaging/consumer/mail-event-handler';
import { OutboxRetentionSweeper } from '../../../src/infrastructure/messaging/outbox-retention-sweeper';
import { toSqlDatetime } from '../../../src/infrastructure/messaging/outbox-claims';
import { UuidV7IdGenerator } from '../../../src/infrastructure/system/uuid-v7-id-generator';
import { AdjustableClock } from '../../support/adjustable-clock';
import { capturingLogger } from './kafka-test-kit';
import { ALL_TARGETS, migratedDatabase } from '../persistence/database-targets';

const ids = new UuidV7IdGenerator();
const DAY = 24 * 60 * 60 * 1000;

describe.each(ALL_TARGETS)('processed_events retention on $name', (target) => {
  const db = migratedDatabase(target);

  it('deletes the records handled past PROCESSED_EVENT_RETENTION_MS, a bounded batch at a time, and keeps the younger ones', async () => {
    const clock = new AdjustableClock();
    clock.freeze();
    const now = clock.now().getTime();
    const record = async (ageMs: number, consumer = 'mailer') => {
      const id = ids.next();
      await db.dataSource.query('INSERT INTO processed_events (consumer, event_id, processed_at) VALUES (?, ?, ?)', [consumer, id, toSqlDatetime(new Date(now - ageMs))]);
      return id;
    };
    const old = [];
    for (let i = 0; i < 7; i++) old.push(await record(PROCESSED_EVENT_RETENTION_MS + (i + 1) * DAY));
    old.push(await record(PROCESSED_EVENT_RETENTION_MS + 1000, 'another-consumer'));
    const young = [await record(PROCESSED_EVENT_RETENTION_MS - 60_000), await record(DAY), await record(0)];

    const { logger, lines } = capturingLogger('info');
    const sweeper = new OutboxRetentionSweeper({
      retention: { afterMs: 7 * DAY, sweepIntervalMs: 60_000, deleteBatchSize: 3, maxBatchesPerSweep: 2, catchUpIntervalMs: 1_000 },
      clock,
      sqliteWriteQueue: db.adapters.services.sqliteWriteQueue,
      dataSource: db.dataSource,
      logger,
    });
    const present = async (of: string[]) =>
      ((await db.dataSource.query(`SELECT event_id FROM processed_events WHERE event_id IN (${of.map(() => '?').join(', ')})`, of)) as { event_id: string }[]).length;

    expect(await sweeper.purgeProcessedEvents()).toBe(6); // two batches of three
    expect(await sweeper.purgeProcessedEvents()).toBe(2);
    expect(await sweeper.purgeProcessedEvents()).toBe(0);
    expect([await present(old), await present(young)]).toEqual([0, young.length]);
    expect(lines.some((line) => line.includes('deleted records of mail events handled past their retention'))).toBe(true);

    // The sweep the relay runs does it too, past the outbox's own rows.
    const older = await record(PROCESSED_EVENT_RETENTION_MS + DAY);
    await sweeper.sweepIfDue();
    expect([await present([older]), await present(young)]).toEqual([0, young.length]);
  });

  it('sweeps again soon after a sweep that stopped at its cap with rows left, and a whole interval after one that did not', async () => {
    const clock = new AdjustableClock();
    clock.freeze();
    const record = async () => {
      const id = ids.next();
      await db.dataSource.query('INSERT INTO processed_events (consumer, event_id, processed_at) VALUES (?, ?, ?)', ['mailer', id, toSqlDatetime(new Date(clock.now().getTime() - PROCESSED_EVENT_RETENTION_MS - DAY))]);
      return id;
    };
    const old: string[] = [];
    for (let i = 0; i < 8; i++) old.push(await record());
    const sweeper = new OutboxRetentionSweeper({
      retention: { afterMs: 7 * DAY, sweepIntervalMs: 60 * 60_000, deleteBatchSize: 3, maxBatchesPerSweep: 2, catchUpIntervalMs: 1_000 },
      clock,
      sqliteWriteQueue: db.adapters.services.sqliteWriteQueue,
      dataSource: db.dataSource,
      logger: capturingLogger('warn').logger,
    });
    const left = async (of: string[]) =>
      ((await db.dataSource.query(`SELECT event_id FROM processed_events WHERE event_id IN (${of.map(() => '?').join(', ')})`, of)) as { event_id: string }[]).length;

    await sweeper.sweepIfDue(); // its cap: two statements of three
    expect(await left(old)).toBe(2);
    clock.advance(999);
    await sweeper.sweepIfDue();
    expect(await left(old)).toBe(2);
    clock.advance(1);
    await sweeper.sweepIfDue(); // the rest, under the cap: the next sweep is an interval away again
    expect(await left(old)).toBe(0);
    const later = [await record()];
    clock.advance(1_000);
    await sweeper.sweepIfDue();
    expect(await left(later)).toBe(1);
    clock.advance(60 * 60_000);
    await sweeper.sweepIfDue();
    expect(await left(later)).toBe(0);
  });
});
