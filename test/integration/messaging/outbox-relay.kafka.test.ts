/**
 * The outbox relay against a real MariaDB/MySQL database and a real Kafka broker:
 * nudge latency and the wire format, several relays at once, and retention.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { DataSource } from 'typeorm';
import { CLOUD_EVENT_CONTENT_TYPE, type CloudEvent, type EventPublisher } from '../../../src/infrastructure/messaging/cloud-event';
import { KafkaEventPublisher } from '../../../src/infrastructure/messaging/kafka-event-publisher';
import { OutboxRelay } from '../../../src/infrastructure/messaging/outbox-relay';
import { createDataSource } from '../../../src/infrastructure/persistence/typeorm/data-source';
import { runMigrations } from '../../../src/infrastructure/persistence/typeorm/migrate';
import { TypeOrmAdapters } from '../../support/typeorm-adapters';
import { AdjustableClock } from '../../support/adjustable-clock';
import { insertOutboxRows, invitedRow, outboxCounts, type OutboxFixtureRow, randomUserRows } from '../../support/outbox-fixtures';
import { createTestDatabase, type TestDatabase } from '../../support/test-database';
import {
  capturingLogger,
  createTopic,
  eventually,
  kafkaBrokers,
  secretsIn,
  startReader,
  topicMessageCount,
  uniqueTopic,
} from './kafka-test-kit';
import { UserLifecycle } from './user-lifecycle';

const DAY = 24 * 60 * 60 * 1000;

let database: TestDatabase;
let dataSource: DataSource;
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  database = await createTestDatabase('ac_relay');
  dataSource = createDataSource(database.config);
  await dataSource.initialize();
  await runMigrations(dataSource);
});

afterAll(async () => {
  if (dataSource?.isInitialized) await dataSource.destroy();
  await database?.drop();
});

beforeEach(async () => {
  await dataSource.query('DELETE FROM outbox_events');
  await dataSource.query('DELETE FROM users');
});

afterEach(async () => {
  // Last registered first: relays stop before their publishers close and their data sources go.
  while (cleanups.length > 0) await cleanups.pop()!().catch(() => undefined);
});

function kafkaPublisher(topic: string, logger = capturingLogger('warn').logger): KafkaEventPublisher {
  const publisher = new KafkaEventPublisher({ brokers: kafkaBrokers(), topic, clientId: 'relay-test', logger });
  cleanups.push(() => publisher.close());
  return publisher;
}

function relayOf(options: ConstructorParameters<typeof OutboxRelay>[0]): OutboxRelay {
  const relay = new OutboxRelay(options);
  cleanups.push(() => relay.stop());
  return relay;
}

/** Wraps a publisher to record when each publish settled. */
function timed(inner: EventPublisher): EventPublisher & { acks: { at: number; ids: string[] }[] } {
  const acks: { at: number; ids: string[] }[] = [];
  return {
    acks,
    async publish(events: readonly CloudEvent[]) {
      await inner.publish(events);
      acks.push({ at: performance.now(), ids: events.map((e) => e.id) });
    },
    close: () => inner.close(),
  };
}

function schemaValidator(type: string) {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  addFormats(ajv);
  const schema = JSON.parse(readFileSync(path.join(__dirname, '../../../docs/events', `${type}.schema.json`), 'utf8'));
  return ajv.compile(schema);
}

describe('OutboxRelay → Kafka (MariaDB/MySQL)', () => {
  it('publishes a committed row as soon as it is nudged: key = user id, CloudEvents headers and envelope, no secret', async () => {
    const topic = uniqueTopic('relay-nudge');
    await createTopic(topic, 3);
    const reader = await startReader(topic);
    cleanups.push(() => reader.stop());
    await reader.joined;

    const { logger, lines } = capturingLogger('debug');
    const publisher = timed(kafkaPublisher(topic));
    // The poll is a minute: only the nudge can make the relay publish within this test.
    const relay = relayOf({ dataSource, publisher, logger, pollIntervalMs: 60_000, source: '/access-control' });
    relay.start();
    // Its first pass (an empty outbox) and first sweep are behind it: asleep until nudged.
    expect(await eventually(async () => relay.status().idle, (idle) => idle, 5_000)).toBe(true);

    const lifecycle = new UserLifecycle(new TypeOrmAdapters(dataSource).unitOfWork());
    const latencies: { ack: number; consumed: number }[] = [];
    const written: { userId: string; eventId: string; type: string }[] = [];
    for (const step of [
      () => lifecycle.invite('ada.lovelace@example.com', 'Ada'),
      (userId: string) => lifecycle.join(userId, 'ada.lovelace'),
    ]) {
      const w = await step(written[0]?.userId ?? '');
      written.push({ userId: w.userId, eventId: w.eventIds[0]!, type: w.types[0]! });
      const nudgedAt = performance.now();
      relay.nudge();
      const [message] = (await reader.waitFor(written.length, 15_000)).slice(-1);
      const ack = publisher.acks.find((a) => a.ids.includes(w.eventIds[0]!));
      latencies.push({ ack: (ack?.at ?? NaN) - nudgedAt, consumed: message!.receivedAt - nudgedAt });
    }
    console.log(
      `[relay] nudge → Kafka ack / → consumer: ${latencies
        .map((l, i) => `${i === 0 ? 'cold' : 'warm'} ${l.ack.toFixed(1)} ms / ${l.consumed.toFixed(1)} ms`)
        .join('; ')}`,
    );

    expect(reader.received).toHaveLength(2);
    expect(await topicMessageCount(topic)).toBe(2);
    const userId = written[0]!.userId;
    for (const [i, message] of reader.received.entries()) {
      expect(message.key).toBe(userId);
      expect(message.headers).toEqual({
        'content-type': CLOUD_EVENT_CONTENT_TYPE,
        ce_id: written[i]!.eventId,
        ce_type: written[i]!.type,
      });
      const event = JSON.parse(message.value) as CloudEvent<Record<string, unknown>>;
      expect(event).toMatchObject({
        specversion: '1.0',
        id: written[i]!.eventId,
        type: written[i]!.type,
        source: '/access-control',
        subject: userId,
        datacontenttype: 'application/json',
        dataschema: `urn:access-control:events:${written[i]!.type}:v1`,
      });
      expect(event.time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(event.data.user_id).toBe(userId);
      const validate = schemaValidator(event.type);
      expect(validate(event) ? [] : validate.errors).toEqual([]);
      expect(secretsIn(message.value)).toEqual([]);
    }
    expect(reader.received.map((m) => m.headers.ce_type)).toEqual(['UserInvited', 'UserJoined']);
    expect(JSON.parse(reader.received[1]!.value).data).toMatchObject({ username: 'ada.lovelace', name: 'Zoë 🚀 Ünïcode' });

    const rows = (await dataSource.query('SELECT published_at, attempts FROM outbox_events')) as { published_at: Date | null; attempts: number }[];
    expect(rows).toHaveLength(2);
    expect(rows.every((r) => r.published_at !== null && Number(r.attempts) === 1)).toBe(true);
    // The log says what happened without a payload: no e-mail address, no hash.
    expect(lines.some((l) => l.includes('outbox events published'))).toBe(true);
    expect(lines.filter((l) => l.includes('ada.lovelace') || l.includes('$argon2'))).toEqual([]);
  });

  it('three relays at once publish 3,000 rows of 300 users exactly once, each user in id order', async () => {
    const topic = uniqueTopic('relay-replicas');
    await createTopic(topic, 6);
    const rows = randomUserRows(300, 3_000);
    const early = rows.slice(0, 2_000);
    const late = rows.slice(2_000);
    await insertOutboxRows(dataSource, early);

    // The first relay holds its first batch (rows locked, transaction open) until the other two have
    // published: with SKIP LOCKED they claim around it instead of waiting for it, so all three publish.
    let holding = false;
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const held = (inner: EventPublisher): EventPublisher => ({
      async publish(events) {
        holding = true;
        await released;
        await inner.publish(events);
      },
      close: () => inner.close(),
    });

    // Three replicas: a data source (pool), a producer and a relay each.
    const relays: OutboxRelay[] = [];
    for (let i = 0; i < 3; i++) {
      const ds = createDataSource(database.config, { poolSize: 3 });
      await ds.initialize();
      cleanups.push(() => ds.destroy());
      const publisher = i === 0 ? held(kafkaPublisher(topic)) : kafkaPublisher(topic);
      relays.push(relayOf({ dataSource: ds, publisher, logger: capturingLogger('warn').logger, batchSize: 50, pollIntervalMs: 50 }));
    }
    const started = Date.now();
    relays[0]!.start();
    try {
      expect(await eventually(async () => holding, (h) => h, 10_000)).toBe(true);
      relays.slice(1).forEach((r) => r.start());
      // More rows arrive while the relays run, each commit followed by nudges as the service does.
      for (let at = 0; at < late.length; at += 100) {
        await insertOutboxRows(dataSource, late.slice(at, at + 100));
        relays.forEach((r) => r.nudge());
      }
      const others = await eventually(async () => relays.slice(1).map((r) => r.status().published), (p) => p.every((n) => n > 0), 30_000);
      expect(others.every((n) => n > 0)).toBe(true);
    } finally {
      release();
    }

    const counts = await eventually(() => outboxCounts(dataSource), (c) => c.unpublished === 0, 60_000);
    const elapsed = Date.now() - started;
    await Promise.all(relays.map((r) => r.stop()));
    expect(counts).toEqual({ total: 3_000, unpublished: 0 });
    const perRelay = relays.map((r) => r.status().published);
    console.log(`[relay] 3 relays published 3,000 rows of 300 users in ${elapsed} ms (per relay: ${perRelay.join(', ')})`);
    expect(perRelay.reduce((a, b) => a + b, 0)).toBe(3_000);
    expect(perRelay.every((n) => n > 0)).toBe(true);

    // Every row was claimed once: one attempt each.
    const attempts = (await dataSource.query('SELECT attempts, COUNT(*) AS n FROM outbox_events GROUP BY attempts')) as { attempts: number; n: number }[];
    expect(attempts.map((a) => [Number(a.attempts), Number(a.n)])).toEqual([[1, 3_000]]);

    expect(await topicMessageCount(topic)).toBe(3_000); // the topic holds no duplicate
    const reader = await startReader(topic);
    cleanups.push(() => reader.stop());
    const received = await reader.waitFor(3_000, 30_000);
    expect(received).toHaveLength(3_000);
    const ids = received.map((m) => m.headers.ce_id!);
    expect(new Set(ids).size).toBe(3_000);
    expect([...ids].sort()).toEqual(rows.map((r) => r.id).sort());

    const expectedByUser = groupBy(rows, (r) => r.aggregateId);
    const receivedByUser = groupBy(received, (m) => m.key!);
    expect(receivedByUser.size).toBe(300);
    for (const [userId, messages] of receivedByUser) {
      expect(new Set(messages.map((m) => m.partition)).size).toBe(1); // keyed: one partition per user
      expect(messages.map((m) => m.headers.ce_id)).toEqual(expectedByUser.get(userId)!.map((r) => r.id));
    }
  }, 90_000);

  it('deletes published rows past the retention on its clock, in bounded batches, and never an unpublished row', async () => {
    // The relays' clock stands still; the test moves it to cross the retention.
    const clock = new AdjustableClock();
    clock.freeze();
    const now = clock.now().getTime();
    const at = (msAgo: number) => new Date(now - msAgo);
    const expired = Array.from({ length: 10 }, (_, i) => ({ ...invitedRow(`00000000-0000-7000-8000-${String(i).padStart(12, '0')}`, at(30 * DAY)), publishedAt: at(8 * DAY + i) }));
    const recent = Array.from({ length: 3 }, () => ({ ...invitedRow('019a0000-0000-7000-8000-00000000000b', at(6 * DAY)), publishedAt: at(6 * DAY) }));
    const unpublishedOld: OutboxFixtureRow[] = Array.from({ length: 4 }, () => invitedRow('019a0000-0000-7000-8000-00000000000c', at(60 * DAY)));
    await insertOutboxRows(dataSource, [...expired, ...recent, ...unpublishedOld]);

    const relay = relayOf({
      dataSource,
      publisher: { publish: async () => undefined, close: async () => undefined },
      logger: capturingLogger('warn').logger,
      retention: { afterMs: 7 * DAY, deleteBatchSize: 3, maxBatchesPerSweep: 2 },
      clock,
    });

    // Bounded: at most 2 statements of 3 rows per sweep.
    expect(await relay.purgeExpired()).toBe(6);
    expect(await outboxCounts(dataSource)).toEqual({ total: 11, unpublished: 4 });
    expect(await relay.purgeExpired()).toBe(4);
    expect(await relay.purgeExpired()).toBe(0);

    const left = (await dataSource.query('SELECT id, published_at FROM outbox_events ORDER BY id')) as { id: string }[];
    expect(left.map((r) => r.id).sort()).toEqual([...recent, ...unpublishedOld].map((r) => r.id).sort());

    // The loop sweeps by itself, right after start and then every sweepIntervalMs of its clock, even
    // while publishing fails (and while its clock stands still, it waits out that backoff).
    const more = Array.from({ length: 5 }, (_, i) => ({ ...invitedRow(`00000000-0000-7000-8000-1${String(i).padStart(11, '0')}`, at(9 * DAY)), publishedAt: at(9 * DAY) }));
    await insertOutboxRows(dataSource, more);
    let publishAttempts = 0;
    const looping = relayOf({
      dataSource,
      publisher: {
        publish: async () => {
          publishAttempts += 1;
          throw new Error('broker unavailable');
        },
        close: async () => undefined,
      },
      logger: capturingLogger('error').logger,
      pollIntervalMs: 50,
      backoff: { initialMs: 50, maxMs: 100 },
      retention: { afterMs: 7 * DAY, sweepIntervalMs: 60 * 60 * 1000 },
      clock,
    });
    looping.start();
    const firstSweep = await eventually(() => outboxCounts(dataSource), (c) => c.total === 7, 10_000);
    expect(firstSweep).toEqual({ total: 7, unpublished: 4 });
    // A day (and a second) later on its clock, the rows published 6 days ago are past the retention too.
    clock.advance(DAY + 1_000);
    const counts = await eventually(() => outboxCounts(dataSource), (c) => c.total === 4, 10_000);
    await looping.stop();
    expect(publishAttempts).toBeGreaterThan(0);
    expect(counts).toEqual({ total: 4, unpublished: 4 });
    // Failed attempts are counted, on the user's oldest row only: its later rows wait behind it.
    const attempts = (await dataSource.query('SELECT attempts FROM outbox_events WHERE published_at IS NULL ORDER BY id')) as { attempts: number }[];
    expect(attempts.map((a) => Number(a.attempts) > 0)).toEqual([true, false, false, false]);
  });
});

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    groups.set(k, [...(groups.get(k) ?? []), item]);
  }
  return groups;
}
