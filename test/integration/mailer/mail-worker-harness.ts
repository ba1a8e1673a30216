/**
 * The mailer worker's test bench: a real Kafka broker, a real SMTP server (in this process) and a real
 * MariaDB/MySQL database, with IssueInvitationUseCase on the real TypeORM adapters. Each test makes topics of its
 * own; the SMTP server and the database are shared by the tests of a file (each test mails its own addresses).
 * No secret reaches a log line of any worker: checked after the file's tests.
 */
import type { ChildProcess } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { type Admin, type IHeaders, type KafkaMessage, logLevel, Partitioners, type Producer } from 'kafkajs';
import { Kafka } from '../../../src/infrastructure/messaging/kafka-client';
import type { DataSource } from 'typeorm';
import type { Role } from '../../../src/domain/roles/role';
import { Email } from '../../../src/domain/users/email';
import { User } from '../../../src/domain/users/user';
import { createLogger } from '../../../src/infrastructure/logging/logger';
import type { CloudEvent } from '../../../src/infrastructure/messaging/cloud-event';
import { NodemailerMailer } from '../../../src/infrastructure/mail/nodemailer-mailer';
import { SEEDED_ROLES } from '../../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { createDataSource } from '../../../src/infrastructure/persistence/typeorm/data-source';
import { runMigrations } from '../../../src/infrastructure/persistence/typeorm/migrate';
import { TypeOrmAdapters } from '../../support/typeorm-adapters';
import { UuidV7IdGenerator } from '../../../src/infrastructure/system/uuid-v7-id-generator';
import { KafkaMailWorker, type KafkaMailWorkerOptions } from '../../../src/infrastructure/messaging/consumer/kafka-mail-worker';
import { SmtpTestServer, tokenFromText } from '../../support/smtp-test-server';
import { createTestDatabase, type TestDatabase } from '../../support/test-database';
import { buildIssueInvitation, invitedCloudEvent } from './fixtures/issue-invitation.fixture';

export const SMTP_PASSWORD = 'smtp-Pa55:w@rd';
export const brokers = (process.env.KAFKA_BROKERS ?? '').split(',').filter(Boolean);
export const ids = new UuidV7IdGenerator();
export const member: Role = { id: SEEDED_ROLES.member, name: 'member', permissions: [] };

export interface Invitee {
  user: User;
  email: string;
  event: CloudEvent;
}

export const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** Registers the hooks of the enclosing describe and returns its helpers; the services are set once beforeAll ran. */
export function mailWorkerHarness() {
  let db: TestDatabase;
  let dataSource: DataSource;
  let smtp: SmtpTestServer;
  let mailer: NodemailerMailer;
  let kafka: Kafka;
  let admin: Admin;
  let producer: Producer;
  const workers: KafkaMailWorker[] = [];
  const children: ChildProcess[] = [];
  const logLines: string[] = [];
  const logger = createLogger(
    'info',
    new Writable({
      write(chunk, _encoding, callback) {
        logLines.push(String(chunk));
        callback();
      },
    }),
  );
  const sentTokens: string[] = [];

  beforeAll(async () => {
    expect(brokers.length).toBeGreaterThan(0);
    db = await createTestDatabase('ac_mailer');
    dataSource = createDataSource(db.config, { poolSize: 5 });
    await dataSource.initialize();
    await runMigrations(dataSource);
    smtp = await SmtpTestServer.start({ username: 'mailer', password: SMTP_PASSWORD });
    mailer = new NodemailerMailer({ smtpUrl: smtp.url, from: 'Access Control <no-reply@ac.example.test>', logger });
    kafka = new Kafka({ clientId: 'mailer-test', brokers, logLevel: logLevel.NOTHING, retry: { initialRetryTime: 100, retries: 10 } });
    admin = kafka.admin();
    await admin.connect();
    producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
  });

  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.stop()));
    for (const child of children.splice(0)) child.kill('SIGKILL');
    smtp.clearFaults();
  });

  afterAll(async () => {
    await producer?.disconnect();
    await admin?.disconnect();
    await mailer?.close();
    await smtp?.close();
    if (dataSource?.isInitialized) await dataSource.destroy();
    await db?.drop();
    // No secret in any log line of any worker, whatever happened.
    for (const token of sentTokens) expect(logLines.join('\n')).not.toContain(token);
    expect(logLines.join('\n')).not.toContain(SMTP_PASSWORD);
    expect(logLines.join('\n')).not.toContain(encodeURIComponent(SMTP_PASSWORD));
  });

  // --- helpers ---------------------------------------------------------------------------------

  async function newTopic(partitions: number): Promise<string> {
    const topic = `mailer-test-${randomUUID()}`;
    await admin.createTopics({ topics: [{ topic, numPartitions: partitions, replicationFactor: 1 }], waitForLeaders: true });
    return topic;
  }

  async function invite(count: number, label: string): Promise<Invitee[]> {
    const users = new TypeOrmAdapters(dataSource).users();
    const invitees: Invitee[] = [];
    for (let i = 0; i < count; i++) {
      const email = `${label}-${i}-${randomUUID().slice(0, 8)}@example.com`;
      const user = User.invite({ id: ids.next(), email: Email.parse(email), role: member, invitedBy: ids.next(), now: new Date(), newId: () => ids.next() });
      const event = invitedCloudEvent(user);
      await users.add(user);
      invitees.push({ user, email, event });
    }
    return invitees;
  }

  function message(event: CloudEvent, extra: { partition?: number; headers?: IHeaders } = {}) {
    return { key: event.subject, value: JSON.stringify(event), ...extra };
  }

  async function produce(topic: string, messages: { key?: string | null; value: string | null; partition?: number; headers?: IHeaders }[]) {
    await producer.send({ topic, acks: -1, messages });
  }

  async function startWorker(topic: string, options: Partial<KafkaMailWorkerOptions> = {}): Promise<KafkaMailWorker> {
    const worker = new KafkaMailWorker({
      issueInvitation: buildIssueInvitation(dataSource, mailer),
      logger,
      kafka: { brokers, clientId: 'mailer-test-worker', topic },
      groupId: `mailer-test-${randomUUID()}`,
      retry: { initialDelayMs: 50, maxDelayMs: 400 },
      heartbeatIntervalMs: 500,
      sessionTimeoutMs: 6_000,
      maxWaitTimeMs: 250,
      ...options,
    });
    workers.push(worker);
    await worker.start();
    return worker;
  }

  /** Resolves once the group has committed every message of the topic. */
  async function waitUntilCommitted(groupId: string, topic: string, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const ends = new Map((await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, p.high]));
    for (;;) {
      const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
      const behind = committed.partitions.filter((p) => p.offset !== ends.get(p.partition) && ends.get(p.partition) !== '0');
      if (behind.length === 0) return;
      if (Date.now() > deadline) throw new Error(`group ${groupId} is behind on ${JSON.stringify(behind)} (ends ${JSON.stringify([...ends])})`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async function storedTokenHash(userId: string): Promise<string | undefined> {
    const rows: { token_hash: string }[] = await dataSource.query('SELECT token_hash FROM invitations WHERE user_id = ?', [userId]);
    return rows[0]?.token_hash;
  }

  async function processedCount(eventIds: string[]): Promise<number> {
    const rows: { n: string | number }[] = await dataSource.query(
      `SELECT COUNT(*) AS n FROM processed_events WHERE consumer = 'mailer' AND event_id IN (${eventIds.map(() => '?').join(',')})`,
      eventIds,
    );
    return Number(rows[0].n);
  }

  /** The token of every mail to the address, oldest first (and remembered for the log check). */
  async function tokensMailedTo(email: string): Promise<string[]> {
    const tokens = await Promise.all(smtp.messagesTo(email).map(async (m) => tokenFromText((await m.parsed()).text)));
    for (const token of tokens) {
      expect(token).toBeDefined();
      sentTokens.push(token!);
    }
    return tokens as string[];
  }

  async function expectOneValidMailEach(invitees: Invitee[]): Promise<void> {
    for (const { user, email } of invitees) {
      const tokens = await tokensMailedTo(email);
      expect({ email, mails: tokens.length }).toEqual({ email, mails: 1 });
      expect(sha256(tokens[0])).toBe(await storedTokenHash(user.id));
    }
  }

  async function readTopic(topic: string, count: number, timeoutMs = 20_000): Promise<KafkaMessage[]> {
    const consumer = kafka.consumer({ groupId: `reader-${randomUUID()}`, maxWaitTimeInMs: 250 });
    const received: KafkaMessage[] = [];
    await consumer.connect();
    try {
      await consumer.subscribe({ topics: [topic], fromBeginning: true });
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`read ${received.length} of ${count} messages of ${topic}`)), timeoutMs);
        void consumer.run({
          eachMessage: async ({ message: m }) => {
            received.push(m);
            if (received.length >= count) {
              clearTimeout(timer);
              resolve();
            }
          },
        });
      });
      // Everything the topic holds now, not just the first `count`: a duplicate beyond them would be read too.
      const admin = kafka.admin();
      await admin.connect();
      const onTopic = (await admin.fetchTopicOffsets(topic)).reduce((sum, p) => sum + Number(p.high) - Number(p.low), 0);
      await admin.disconnect();
      const deadline = Date.now() + timeoutMs;
      while (received.length < onTopic && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      await consumer.disconnect();
    }
    return received;
  }

  const header = (m: KafkaMessage, name: string) => m.headers?.[name]?.toString();

  return {
    get db() {
      return db;
    },
    get dataSource() {
      return dataSource;
    },
    get smtp() {
      return smtp;
    },
    get mailer() {
      return mailer;
    },
    get admin() {
      return admin;
    },
    workers,
    children,
    logLines,
    logger,
    newTopic,
    invite,
    message,
    produce,
    startWorker,
    waitUntilCommitted,
    storedTokenHash,
    processedCount,
    tokensMailedTo,
    expectOneValidMailEach,
    readTopic,
    header,
  };
}
