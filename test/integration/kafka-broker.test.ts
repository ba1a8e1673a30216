/**
 * Smoke test of the Kafka broker the integration tests run against (provided by
 * test/support/global-setup.ts through KAFKA_BROKERS), and of LocalKafkaBroker.restart().
 */
import { randomUUID } from 'node:crypto';
import { type KafkaMessage, logLevel, Partitioners } from 'kafkajs';
import { Kafka } from '../../src/infrastructure/messaging/kafka-client';
import { LocalKafkaBroker, localKafkaUnavailable } from '../support/local-kafka';

interface Received {
  key: string | undefined;
  value: string | undefined;
  offset: string;
}

function client(brokers: string): Kafka {
  return new Kafka({
    clientId: `kafka-broker-test-${randomUUID().slice(0, 8)}`,
    brokers: brokers.split(','),
    logLevel: logLevel.NOTHING,
    retry: { initialRetryTime: 100, retries: 10 },
  });
}

async function createTopic(kafka: Kafka, topic: string): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    // One partition: the order of the messages is then the order in which they were sent.
    const created = await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1 }], waitForLeaders: true });
    expect(created).toBe(true);
  } finally {
    await admin.disconnect();
  }
}

async function produce(kafka: Kafka, topic: string, messages: { key: string; value: string }[]): Promise<void> {
  const producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  await producer.connect();
  try {
    await producer.send({ topic, acks: -1, messages });
  } finally {
    await producer.disconnect();
  }
}

/** Reads `count` messages of `topic` from the beginning with a fresh consumer group. */
async function consume(kafka: Kafka, topic: string, count: number, timeoutMs = 30_000): Promise<Received[]> {
  const consumer = kafka.consumer({ groupId: `kafka-broker-test-${randomUUID()}` });
  const received: Received[] = [];
  let timer: NodeJS.Timeout | undefined;
  try {
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      timer = setTimeout(
        () => reject(new Error(`got ${received.length} of ${count} messages from ${topic} within ${timeoutMs} ms`)),
        timeoutMs,
      );
      consumer
        .run({
          eachMessage: async ({ message }: { message: KafkaMessage }) => {
            received.push({ key: message.key?.toString(), value: message.value?.toString(), offset: message.offset });
            if (received.length >= count) resolve();
          },
        })
        .catch(reject);
    });
  } finally {
    if (timer) clearTimeout(timer);
    await consumer.disconnect();
  }
  return received;
}

const brokers = process.env.KAFKA_BROKERS;

describe('Kafka broker', () => {
  it('is configured by the global setup', () => {
    expect(brokers).toMatch(/^[^,:\s]+:\d+(,[^,:\s]+:\d+)*$/);
  });

  it('round-trips keyed messages in order (idempotent producer, acks=-1, fresh consumer group)', async () => {
    const kafka = client(brokers ?? '');
    const topic = `smoke-${randomUUID()}`;
    const messages = [1, 2, 3].map((i) => ({ key: `key-${i}`, value: JSON.stringify({ n: i, topic }) }));

    await createTopic(kafka, topic);
    await produce(kafka, topic, messages);
    const received = await consume(kafka, topic, messages.length);

    expect(received.map(({ key, value }) => ({ key, value }))).toEqual(messages);
    expect(received.map((m) => m.offset)).toEqual(['0', '1', '2']);
  });

  const localOnly = localKafkaUnavailable() ? it.skip : it;

  localOnly(
    'a LocalKafkaBroker keeps its port and its data across restart()',
    async () => {
      const broker = await LocalKafkaBroker.start();
      try {
        const before = broker.brokers;
        const topic = `restart-${randomUUID()}`;
        await createTopic(client(before), topic);
        await produce(client(before), topic, [{ key: 'survivor', value: 'written before the restart' }]);

        const pidBefore = broker.pid;
        await broker.restart();

        expect(broker.brokers).toBe(before);
        expect(broker.pid).not.toBe(pidBefore);
        const received = await consume(client(broker.brokers), topic, 1);
        expect(received).toEqual([{ key: 'survivor', value: 'written before the restart', offset: '0' }]);
      } finally {
        await broker.destroy();
      }
    },
    120_000,
  );
});
