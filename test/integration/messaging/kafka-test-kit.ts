/**
 * Helpers of the messaging integration tests: a raw kafkajs client to create topics and read
 * them back, and a pino logger whose lines a test can inspect.
 */
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { ConfigResourceTypes, logLevel } from 'kafkajs';
import { Kafka } from '../../../src/infrastructure/messaging/kafka-client';
import { createLogger, type Logger } from '../../../src/infrastructure/logging/logger';

export interface ReadMessage {
  partition: number;
  offset: string;
  key: string | undefined;
  value: string;
  headers: Record<string, string>;
  receivedAt: number;
}

export function kafkaBrokers(): string[] {
  const brokers = process.env.KAFKA_BROKERS;
  if (!brokers) throw new Error('KAFKA_BROKERS is not set: run the integration tests through jest (global setup)');
  return brokers.split(',');
}

export function testKafka(brokers: readonly string[] = kafkaBrokers()): Kafka {
  return new Kafka({
    clientId: `messaging-test-${randomUUID().slice(0, 8)}`,
    brokers: [...brokers],
    logLevel: logLevel.NOTHING,
    retry: { initialRetryTime: 100, retries: 10 },
  });
}

/** Each topic's retention.ms as the broker reports it (its own default where the topic sets none). */
export async function retentionOf(brokers: string | readonly string[], topics: string[]): Promise<Record<string, string | undefined>> {
  const admin = testKafka(typeof brokers === 'string' ? [brokers] : brokers).admin();
  await admin.connect();
  try {
    const { resources } = await admin.describeConfigs({
      resources: topics.map((name) => ({ type: ConfigResourceTypes.TOPIC, name, configNames: ['retention.ms'] })),
      includeSynonyms: false,
    });
    return Object.fromEntries(resources.map((r) => [r.resourceName, r.configEntries.find((e) => e.configName === 'retention.ms')?.configValue]));
  } finally {
    await admin.disconnect();
  }
}

export function uniqueTopic(prefix: string): string {
  return `${prefix}-${randomUUID()}`;
}

export async function createTopic(topic: string, partitions: number, brokers?: readonly string[]): Promise<void> {
  const admin = testKafka(brokers).admin();
  await admin.connect();
  try {
    await admin.createTopics({ topics: [{ topic, numPartitions: partitions, replicationFactor: 1 }], waitForLeaders: true });
  } catch (error) {
    // Under load the broker can answer kafkajs's wait for leaders before its metadata holds the topic it just created
    // (UNKNOWN_TOPIC_OR_PARTITION, which that wait does not retry): the topic exists, so its leaders are awaited here.
    if ((error as { type?: unknown }).type !== 'UNKNOWN_TOPIC_OR_PARTITION') throw error;
    await leadersOf(admin, topic, partitions);
  } finally {
    await admin.disconnect();
  }
}

async function leadersOf(admin: ReturnType<ReturnType<typeof testKafka>['admin']>, topic: string, partitions: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
      const led = topics[0]?.partitions.filter((p) => p.leader >= 0).length ?? 0;
      if (led === partitions) return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    if (Date.now() > deadline) throw new Error(`topic ${topic}: ${partitions} partitions without leaders after 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** How many messages the topic holds (sum over partitions of high - low watermark): duplicates count. */
export async function topicMessageCount(topic: string, brokers?: readonly string[]): Promise<number> {
  const admin = testKafka(brokers).admin();
  await admin.connect();
  try {
    const offsets = await admin.fetchTopicOffsets(topic);
    return offsets.reduce((sum, p) => sum + (Number(p.high) - Number(p.low)), 0);
  } finally {
    await admin.disconnect();
  }
}

/**
 * A consumer of a fresh group reading `topic` from the beginning. `received` fills as messages
 * arrive (in partition order); `waitFor(n)` resolves once n are in.
 */
export async function startReader(topic: string, brokers?: readonly string[]) {
  const consumer = testKafka(brokers).consumer({ groupId: `messaging-test-${randomUUID()}`, maxWaitTimeInMs: 100 });
  const received: ReadMessage[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const joined = new Promise<void>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve()));
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(message.headers ?? {})) {
        if (value !== undefined) headers[name] = Array.isArray(value) ? value.map(String).join(',') : value.toString();
      }
      received.push({
        partition,
        offset: message.offset,
        key: message.key?.toString(),
        value: message.value?.toString() ?? '',
        headers,
        receivedAt: performance.now(),
      });
      for (const waiter of waiters.filter((w) => received.length >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    },
  });
  return {
    received,
    joined,
    waitFor(count: number, timeoutMs = 30_000): Promise<ReadMessage[]> {
      if (received.length >= count) return Promise.resolve(received);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`read ${received.length} of ${count} messages from ${topic} within ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve(received);
          },
        });
      });
    },
    stop: () => consumer.disconnect(),
  };
}

/** A logger at `level` whose output lines are kept in `lines` (to check what it says, and that it says no secret). */
export function capturingLogger(level = 'debug'): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      callback();
    },
  });
  return { logger: createLogger(level, destination), lines };
}

/** Polls `check` until it holds or `timeoutMs` passes (then the last value is returned for the assertion). */
export async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, timeoutMs = 30_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!check(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, everyMs));
    value = await read();
  }
  return value;
}

/** Names anywhere in a JSON value (keys, recursively). */
export function keysOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(keysOf);
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, inner]) => [key, ...keysOf(inner)]);
  }
  return [];
}

/** Secrets an event must never carry: a field named like one, or an argon2 hash anywhere. */
export function secretsIn(json: string): string[] {
  // An id names a secret without carrying it (a service account's `secret_id`, #21).
  const found = keysOf(JSON.parse(json)).filter((key) => /password|hash|token|secret/i.test(key) && !/_id$/.test(key));
  if (json.includes('$argon2')) found.push('$argon2');
  // A sealed second-factor secret (#24): `v1.<nonce>.<tag>.<ciphertext>`.
  if (/"v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\./.test(json)) found.push('sealed secret');
  return found;
}
