/**
 * Kafka goes away in the middle of a burst of events and comes back: nothing is lost, the relay
 * backs off meanwhile (nudges notwithstanding) and does not crash. Delivery is at least once: a
 * batch whose acknowledgement went down with the broker is published again, so a duplicate is
 * allowed (and counted); a missing event, or one out of its user's order, is not.
 *
 * The relay runs on the test's clock with a backoff far longer than the test: each retry comes
 * when the test moves the clock to its deadline, so the backoff is checked on its deadlines, not
 * on how long the retries happened to take.
 * Needs a broker of its own to stop and restart: a LocalKafkaBroker, started whatever the run's shared broker is.
 */
import type { DataSource } from 'typeorm';
import { v7 } from 'uuid';
import type { CloudEvent, EventPublisher } from '../../../src/infrastructure/messaging/cloud-event';
import { KafkaEventPublisher } from '../../../src/infrastructure/messaging/kafka-event-publisher';
import { OutboxRelay, type OutboxRelayStatus } from '../../../src/infrastructure/messaging/outbox-relay';
import { createDataSource } from '../../../src/infrastructure/persistence/typeorm/data-source';
import { runMigrations } from '../../../src/infrastructure/persistence/typeorm/migrate';
import { AdjustableClock } from '../../support/adjustable-clock';
import { LocalKafkaBroker, localKafkaUnavailable } from '../../support/local-kafka';
import { insertOutboxRows, invitedRow, outboxCounts, type OutboxFixtureRow } from '../../support/outbox-fixtures';
import { createTestDatabase, type TestDatabase } from '../../support/test-database';
import { capturingLogger, createTopic, eventually, startReader, topicMessageCount, uniqueTopic } from './kafka-test-kit';

/** Counts the publishes the relay starts. */
class CountingPublisher implements EventPublisher {
  calls = 0;

  constructor(private readonly inner: EventPublisher) {}

  publish(events: readonly CloudEvent[]): Promise<void> {
    this.calls += 1;
    return this.inner.publish(events);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

const USERS = 200;
const ROWS_PER_TICK = 10;
const TICK_MS = 50;
/** Minutes on the relay's clock: real time alone never ends one of them within this test. */
const BACKOFF = { initialMs: 60_000, maxMs: 240_000 };
const FAILURES_WHILE_DOWN = 4;

const noOwnBroker = localKafkaUnavailable();

describe('OutboxRelay while Kafka is down', () => {
  if (noOwnBroker) {
    it.skip(`survives a Kafka outage — skipped: ${noOwnBroker}`, () => undefined);
    return;
  }

  let database: TestDatabase;
  let dataSource: DataSource;
  let broker: LocalKafkaBroker;

  beforeAll(async () => {
    [database, broker] = await Promise.all([createTestDatabase('ac_outage'), LocalKafkaBroker.start()]);
    dataSource = createDataSource(database.config);
    await dataSource.initialize();
    await runMigrations(dataSource);
  }, 120_000);

  afterAll(async () => {
    await broker?.destroy();
    if (dataSource?.isInitialized) await dataSource.destroy();
    await database?.drop();
  });

  it('keeps rows while Kafka is down, backs off without crashing, and publishes every event at least once, in order per user, after restart()', async () => {
    const topic = uniqueTopic('relay-outage');
    await createTopic(topic, 3, [broker.brokers]);
    const { logger, lines } = capturingLogger('debug');
    const publisher = new CountingPublisher(
      new KafkaEventPublisher({ brokers: [broker.brokers], topic, clientId: 'relay-outage-test', logger, retries: 2, connectionTimeoutMs: 1_000, requestTimeoutMs: 5_000 }),
    );
    const clock = new AdjustableClock();
    const relay = new OutboxRelay({ dataSource, publisher, logger, batchSize: 50, pollIntervalMs: 100, backoff: BACKOFF, clock });
    /** Moves the relay's clock to the end of its backoff, if it is backing off. */
    const endBackoff = (): OutboxRelayStatus => {
      const status = relay.status();
      if (status.backoffUntil) clock.advance(Math.max(0, status.backoffUntil.getTime() - clock.now().getTime()));
      return status;
    };

    // A burst: ROWS_PER_TICK rows every TICK_MS over USERS users, each commit followed by a nudge.
    const users = Array.from({ length: USERS }, () => v7());
    const inserted: { row: OutboxFixtureRow; at: number }[] = [];
    let nudges = 0;
    let bursting = true;
    const burst = (async () => {
      for (let tick = 0; bursting; tick++) {
        const rows = Array.from({ length: ROWS_PER_TICK }, (_, i) => invitedRow(users[(tick * ROWS_PER_TICK + i) % USERS]!, new Date()));
        const at = Date.now(); // the insert starts now, so it commits after this
        await insertOutboxRows(dataSource, rows);
        inserted.push(...rows.map((row) => ({ row, at })));
        relay.nudge();
        nudges += 1;
        await new Promise((r) => setTimeout(r, TICK_MS));
      }
    })();

    try {
      relay.start();
      expect(await eventually(async () => relay.status().published, (n) => n > 0, 30_000)).toBeGreaterThan(0);

      await broker.stop();
      const downSince = Date.now();

      // Down: rows keep coming and stay unpublished; each failed pass backs off twice as long as the
      // one before (up to the cap), and the nudges that keep coming do not cut a backoff short.
      const unpublishedOverTime: number[] = [];
      for (let failure = 1; failure <= FAILURES_WHILE_DOWN; failure++) {
        const status = await eventually(async () => relay.status(), (s) => s.consecutiveFailures >= failure, 30_000);
        expect(status).toMatchObject({ running: true, consecutiveFailures: failure });
        const waits = status.backoffUntil!.getTime() - clock.now().getTime();
        const base = Math.min(BACKOFF.maxMs, BACKOFF.initialMs * 2 ** (failure - 1));
        expect(waits).toBeLessThanOrEqual(Math.min(BACKOFF.maxMs, base * 1.2));
        expect(waits).toBeGreaterThan(base * 0.8 - 5_000); // less the real time since the failure

        // Nudges for longer than a poll interval: none of them starts a pass.
        const [calls, nudged] = [publisher.calls, nudges];
        await eventually(async () => nudges, (n) => n >= nudged + 5, 10_000);
        expect(publisher.calls).toBe(calls);
        expect(relay.status().consecutiveFailures).toBe(failure);
        unpublishedOverTime.push((await outboxCounts(dataSource)).unpublished);
        if (failure < FAILURES_WHILE_DOWN) endBackoff();
      }
      const stranded = inserted.filter((i) => i.at > downSince).map((i) => i.row.id);
      const stillUnpublished = (await dataSource.query(
        `SELECT COUNT(*) AS n FROM outbox_events WHERE published_at IS NULL AND id IN (${stranded.map(() => '?').join(',')})`,
        stranded,
      )) as { n: number }[];
      expect(stranded.length).toBeGreaterThan(0);
      expect(Number(stillUnpublished[0]!.n)).toBe(stranded.length);
      expect(unpublishedOverTime).toEqual([...unpublishedOverTime].sort((a, b) => a - b));
      expect(unpublishedOverTime[FAILURES_WHILE_DOWN - 1]!).toBeGreaterThan(unpublishedOverTime[0]!);

      // Back: the next pass after the backoff publishes again, while rows keep coming.
      await broker.restart();
      const publishedBefore = relay.status().published;
      const again = await eventually(async () => endBackoff(), (s) => s.consecutiveFailures === 0 && s.published > publishedBefore, 60_000);
      expect(again.consecutiveFailures).toBe(0);
      bursting = false;
      await burst;

      const counts = await eventually(() => outboxCounts(dataSource), (c) => c.unpublished === 0, 30_000);
      expect(counts).toEqual({ total: inserted.length, unpublished: 0 });
      expect(relay.status().consecutiveFailures).toBe(0);
    } finally {
      bursting = false;
      await burst;
      await relay.stop();
      await publisher.close();
    }

    // At least once: every committed event is on the topic; a batch cut off with the broker may be
    // there twice (its acknowledgement was lost, so it was published again).
    const messages = await topicMessageCount(topic, [broker.brokers]);
    expect(messages).toBeGreaterThanOrEqual(inserted.length);
    const reader = await startReader(topic, [broker.brokers]);
    try {
      const received = await reader.waitFor(messages, 30_000);
      const ids = received.map((m) => m.headers.ce_id!);
      const distinct = new Set(ids);
      console.log(`[relay] ${inserted.length} events → ${messages} messages (${ids.length - distinct.size} duplicates)`);
      expect([...distinct].sort()).toEqual(inserted.map((i) => i.row.id).sort());
      expect(ids.length - distinct.size).toBe(messages - inserted.length);
      // In order per user, as a consumer that deduplicates by id sees them: each id where it first appears.
      const byUser = new Map<string, string[]>();
      for (const m of received) {
        const seen = byUser.get(m.key!) ?? [];
        if (!seen.includes(m.headers.ce_id!)) seen.push(m.headers.ce_id!);
        byUser.set(m.key!, seen);
      }
      for (const [userId, userIds] of byUser) {
        expect(userIds).toEqual(inserted.filter((i) => i.row.aggregateId === userId).map((i) => i.row.id));
      }
    } finally {
      await reader.stop();
    }

    // It said so, and said nothing it should not.
    expect(lines.some((l) => l.includes('backing off'))).toBe(true);
    expect(lines.some((l) => l.includes('publishing again'))).toBe(true);
    expect(lines.filter((l) => l.includes('@example.com'))).toEqual([]);
  }, 120_000);
});
