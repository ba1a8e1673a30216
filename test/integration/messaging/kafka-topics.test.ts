/**
 * Who creates the topics: the migrate step (KafkaTopicProvisioner), explicitly and with the
 * configured partitions, on a fresh broker that auto-creates nothing; never the relay's publisher,
 * whose publishes to a missing topic fail as a retriable condition while the outbox keeps every
 * event. Needs brokers of its own (auto-creation off, one stopped and restarted): LocalKafkaBrokers, started whatever the run's shared broker is.
 */
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { kafkaConditionOf } from '../../../src/infrastructure/messaging/kafka-conditions';
import { KafkaEventPublisher } from '../../../src/infrastructure/messaging/kafka-event-publisher';
import { KafkaTopicProvisioner, type TopicSpec } from '../../../src/infrastructure/messaging/kafka-topic-provisioner';
import { OutboxRelay } from '../../../src/infrastructure/messaging/outbox-relay';
import { createDataSource } from '../../../src/infrastructure/persistence/typeorm/data-source';
import { runMigrations } from '../../../src/infrastructure/persistence/typeorm/migrate';
import { LocalKafkaBroker, localKafkaUnavailable } from '../../support/local-kafka';
import { insertOutboxRows, invitedRow, outboxCounts } from '../../support/outbox-fixtures';
import { createTestDatabase, type TestDatabase } from '../../support/test-database';
import { startTestApp } from '../../support/test-app';
import { capturingLogger, createTopic, kafkaBrokers, retentionOf, startReader, testKafka, topicMessageCount, uniqueTopic } from './kafka-test-kit';

jest.setTimeout(120_000);

const noOwnBrokers = localKafkaUnavailable();

interface LogLine {
  level: number;
  msg: string;
  topic?: string;
  partitions?: number;
  retentionMs?: number;
  configured?: number;
  condition?: string;
}

const parsed = (lines: string[]): LogLine[] => lines.map((line) => JSON.parse(line) as LogLine);
const WARN = 40;

async function partitionsOf(brokers: string, topics: string[]): Promise<Record<string, number>> {
  const admin = testKafka([brokers]).admin();
  await admin.connect();
  try {
    const { topics: metadata } = await admin.fetchTopicMetadata({ topics });
    return Object.fromEntries(metadata.map((m) => [m.name, m.partitions.length]));
  } finally {
    await admin.disconnect();
  }
}

async function topicNames(brokers: string): Promise<string[]> {
  const admin = testKafka([brokers]).admin();
  await admin.connect();
  try {
    return await admin.listTopics();
  } finally {
    await admin.disconnect();
  }
}

describe('Kafka topics: created by the migrate step, never by accident', () => {
  if (noOwnBrokers) {
    it.skip(`skipped: ${noOwnBrokers}`, () => undefined);
    return;
  }

  let broker: LocalKafkaBroker;
  let database: TestDatabase;
  let dataSource: DataSource;

  beforeAll(async () => {
    [broker, database] = await Promise.all([
      LocalKafkaBroker.start({ properties: { 'auto.create.topics.enable': false } }),
      createTestDatabase('ac_topics'),
    ]);
    dataSource = createDataSource(database.config);
    await dataSource.initialize();
    await runMigrations(dataSource);
  }, 120_000);

  afterAll(async () => {
    await broker?.destroy();
    if (dataSource?.isInitialized) await dataSource.destroy();
    await database?.drop();
  });

  function specs(partitions: number): TopicSpec[] {
    const events = uniqueTopic('events');
    return [
      { topic: events, partitions, replicationFactor: -1, retentionMs: -1 },
      { topic: `${events}.mailer-dlq`, partitions, replicationFactor: -1 },
    ];
  }

  it('creates the events topic and the dead-letter topic with the configured partitions; a second run changes nothing', async () => {
    const { logger, lines } = capturingLogger('info');
    const provisioner = new KafkaTopicProvisioner({ brokers: [broker.brokers], clientId: 'topics-test', logger });
    const topics = specs(4);
    const names = topics.map((t) => t.topic);

    expect(await provisioner.ensure(topics)).toEqual({ created: names, existing: [] });
    expect(await partitionsOf(broker.brokers, names)).toEqual({ [names[0]!]: 4, [names[1]!]: 4 });

    expect(await provisioner.ensure(topics)).toEqual({ created: [], existing: names });
    expect(await partitionsOf(broker.brokers, names)).toEqual({ [names[0]!]: 4, [names[1]!]: 4 });
    expect(parsed(lines).filter((l) => l.msg === 'Kafka topic created').map((l) => l.topic)).toEqual(names);
    expect(parsed(lines).filter((l) => l.level >= WARN)).toEqual([]);
    // The events topic keeps its events for good (a consumer rebuilds the users from the beginning); the other, the broker's default.
    const retention = await retentionOf(broker.brokers, names);
    expect(retention[names[0]!]).toBe('-1');
    expect(Number(retention[names[1]!])).toBeGreaterThan(0);
  });

  it('leaves a topic that exists with another retention as it is, and says so', async () => {
    const { logger, lines } = capturingLogger('info');
    const provisioner = new KafkaTopicProvisioner({ brokers: [broker.brokers], clientId: 'topics-test', logger });
    const [events] = specs(2);
    await createTopic(events!.topic, 2, [broker.brokers]);
    const before = (await retentionOf(broker.brokers, [events!.topic]))[events!.topic];

    expect(await provisioner.ensure([events!])).toEqual({ created: [], existing: [events!.topic] });
    expect((await retentionOf(broker.brokers, [events!.topic]))[events!.topic]).toBe(before);
    const warnings = parsed(lines).filter((l) => l.level >= WARN);
    expect(warnings).toEqual([expect.objectContaining({ topic: events!.topic, retentionMs: Number(before), configured: -1 })]);
  });

  it('leaves a topic that exists with another partition count as it is, and says so', async () => {
    const { logger, lines } = capturingLogger('info');
    const provisioner = new KafkaTopicProvisioner({ brokers: [broker.brokers], clientId: 'topics-test', logger });
    const [events, dlq] = specs(6);
    await createTopic(events!.topic, 2, [broker.brokers]);

    expect(await provisioner.ensure([events!, dlq!])).toEqual({ created: [dlq!.topic], existing: [events!.topic] });
    expect(await partitionsOf(broker.brokers, [events!.topic, dlq!.topic])).toEqual({ [events!.topic]: 2, [dlq!.topic]: 6 });
    const warnings = parsed(lines).filter((l) => l.level >= WARN && l.partitions !== undefined);
    expect(warnings).toEqual([expect.objectContaining({ topic: events!.topic, partitions: 2, configured: 6 })]);
  });

  it('refuses what waiting cannot fix, at once: a replication factor above the broker count', async () => {
    const provisioner = new KafkaTopicProvisioner({ brokers: [broker.brokers], clientId: 'topics-test', logger: capturingLogger('info').logger });
    const [events] = specs(1);
    const failure = await provisioner.ensureUntilDone([{ ...events!, replicationFactor: 3 }]).catch((error: unknown) => error);
    expect(kafkaConditionOf(failure)).toMatchObject({ kind: 'refused', retriable: false });
    expect(await topicNames(broker.brokers)).not.toContain(events!.topic);
  });

  it('the publisher never creates the topic, even on a broker that would: the publish fails as "topic missing"', async () => {
    // The shared broker of the test run auto-creates topics (the broker default); asking is what the publisher no longer does.
    const topic = uniqueTopic('never-auto-created');
    const publisher = new KafkaEventPublisher({ brokers: kafkaBrokers(), topic, clientId: 'topics-test', logger: capturingLogger('warn').logger, retries: 1 });
    try {
      const failure = await publisher.publish([eventFor(randomUUID())]).catch((error: unknown) => error);
      expect(kafkaConditionOf(failure)).toMatchObject({ kind: 'topic-missing', retriable: true });
    } finally {
      await publisher.close();
    }
    expect(await topicNames(kafkaBrokers().join(','))).not.toContain(topic);
  });

  it('the relay keeps every event while its topic is missing, and publishes each once the migrate step created it', async () => {
    const [events] = specs(3);
    const { logger } = capturingLogger('warn');
    const publisher = new KafkaEventPublisher({ brokers: [broker.brokers], topic: events!.topic, clientId: 'topics-test', logger, retries: 1 });
    const relay = new OutboxRelay({ dataSource, publisher, logger, backoff: { initialMs: 50, maxMs: 200 } });
    try {
      await dataSource.query('DELETE FROM outbox_events');
      await insertOutboxRows(dataSource, Array.from({ length: 5 }, () => invitedRow(randomUUID(), new Date())));

      const failure = await relay.drainOnce().catch((error: unknown) => error);
      expect(kafkaConditionOf(failure).kind).toBe('topic-missing');
      expect(await outboxCounts(dataSource)).toEqual({ total: 5, unpublished: 5 });
      expect(await topicNames(broker.brokers)).not.toContain(events!.topic);

      await new KafkaTopicProvisioner({ brokers: [broker.brokers], clientId: 'topics-test', logger }).ensure([events!]);
      expect(await relay.flush()).toBe(5);
      expect(await outboxCounts(dataSource)).toEqual({ total: 5, unpublished: 0 });
      expect(await topicMessageCount(events!.topic, [broker.brokers])).toBe(5);
    } finally {
      await relay.stop();
      await publisher.close();
    }
  });

  it('waits for a broker that is not up yet, says so once, and creates the topics as soon as it answers', async () => {
    const late = await LocalKafkaBroker.start({ properties: { 'auto.create.topics.enable': false } });
    try {
      await late.stop();
      const { logger, lines } = capturingLogger('debug');
      const provisioner = new KafkaTopicProvisioner({ brokers: [late.brokers], clientId: 'topics-test', logger, connectionTimeoutMs: 1_000, backoff: { initialMs: 100, maxMs: 500 } });
      const topics = specs(2);
      const outcome = provisioner.ensureUntilDone(topics);
      const waitingLines = () => parsed(lines).filter((l) => l.msg === 'Kafka topics: still waiting').length;
      while (waitingLines() < 3) await new Promise((resolve) => setTimeout(resolve, 50));

      await late.restart();
      expect(await outcome).toEqual({ created: topics.map((t) => t.topic), existing: [] });
      const warnings = parsed(lines).filter((l) => l.level >= WARN);
      expect(warnings).toEqual([expect.objectContaining({ msg: 'cannot create the Kafka topics yet; waiting', condition: 'broker-unreachable' })]);
      expect(await partitionsOf(late.brokers, topics.map((t) => t.topic))).toEqual({ [topics[0]!.topic]: 2, [topics[1]!.topic]: 2 });
    } finally {
      await late.destroy();
    }
  });
});

describe('Kafka topics: created by the API when it migrates on start (MIGRATE_ON_START=true)', () => {
  if (noOwnBrokers) {
    it.skip(`skipped: ${noOwnBrokers}`, () => undefined);
    return;
  }

  let broker: LocalKafkaBroker;

  beforeAll(async () => {
    broker = await LocalKafkaBroker.start({ properties: { 'auto.create.topics.enable': false } });
  }, 120_000);

  afterAll(async () => {
    await broker?.destroy();
  });

  it('before it listens, on a broker that auto-creates nothing: an invitation reaches the topic (api + Kafka, nothing else)', async () => {
    const topic = uniqueTopic('api-events');
    const app = await startTestApp({ KAFKA_BROKERS: broker.brokers, KAFKA_TOPIC: topic, KAFKA_TOPIC_PARTITIONS: '2' });
    try {
      expect(await partitionsOf(broker.brokers, [topic, `${topic}.mailer-dlq`])).toEqual({ [topic]: 2, [`${topic}.mailer-dlq`]: 2 });
      // KAFKA_TOPIC_RETENTION's default: the events topic is kept for good; so is the dead-letter topic, whose letters
      // wait for an operator (the broker's default would delete them after 7 days).
      expect(await retentionOf(broker.brokers, [topic, `${topic}.mailer-dlq`])).toEqual({ [topic]: '-1', [`${topic}.mailer-dlq`]: '-1' });
      const reader = await startReader(topic, [broker.brokers]);
      try {
        const token = await app.signIn();
        expect((await app.request('POST', '/v1/users/invite', { token, json: { email: `topics-${randomUUID().slice(0, 8)}@example.com` } })).status).toBe(201);
        // The bootstrap admin's UserJoined is on the topic too (issue #11: every user reaches the topic).
        const received = await reader.waitFor(2);
        expect(received.map((m) => (JSON.parse(m.value) as { type: string }).type).sort()).toEqual(['UserInvited', 'UserJoined']);
      } finally {
        await reader.stop();
      }
    } finally {
      await app.close();
    }
  });

  it('Kafka away when it starts: it starts anyway, and creates the topics by itself once Kafka answers', async () => {
    const late = await LocalKafkaBroker.start({ properties: { 'auto.create.topics.enable': false } });
    try {
      await late.stop();
      const topic = uniqueTopic('api-late');
      const app = await startTestApp({ KAFKA_BROKERS: late.brokers, KAFKA_TOPIC: topic });
      try {
        expect((await app.request('GET', '/readyz')).status).toBe(200);
        await late.restart();
        const deadline = Date.now() + 60_000;
        let names = await topicNames(late.brokers);
        while (!(names.includes(topic) && names.includes(`${topic}.mailer-dlq`)) && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 200));
          names = await topicNames(late.brokers);
        }
        expect(await partitionsOf(late.brokers, [topic, `${topic}.mailer-dlq`])).toEqual({ [topic]: 6, [`${topic}.mailer-dlq`]: 6 });
      } finally {
        await app.close();
      }
    } finally {
      await late.destroy();
    }
  });
});

function eventFor(userId: string) {
  return {
    specversion: '1.0' as const,
    id: randomUUID(),
    type: 'UserInvited',
    source: '/access-control',
    time: new Date().toISOString(),
    subject: userId,
    datacontenttype: 'application/json' as const,
    data: { user_id: userId },
  };
}
