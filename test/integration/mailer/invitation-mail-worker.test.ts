/**
 * The mailer worker against a real Kafka broker, a real SMTP server (in this process) and a real
 * MariaDB/MySQL database, with IssueInvitationUseCase on the real TypeORM adapters. Each test has
 * topics of its own; the SMTP server and the database are shared (each test mails its own addresses).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import path from 'node:path';
import { Writable } from 'node:stream';
import { type Admin, type IHeaders, Kafka, type KafkaMessage, logLevel, Partitioners, type Producer } from 'kafkajs';
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
import { InvitationMailWorker, type InvitationMailWorkerOptions } from '../../../src/interfaces/mailer/invitation-mail-worker';
import { SmtpTestServer, tokenFromText } from '../../support/smtp-test-server';
import { createTestDatabase, type TestDatabase } from '../../support/test-database';
import { buildIssueInvitation, invitedCloudEvent } from './fixtures/issue-invitation.fixture';

jest.setTimeout(60_000);

const SMTP_PASSWORD = 'smtp-Pa55:w@rd';
const brokers = (process.env.KAFKA_BROKERS ?? '').split(',').filter(Boolean);
const ids = new UuidV7IdGenerator();
const member: Role = { id: SEEDED_ROLES.member, name: 'member', permissions: [] };

interface Invitee {
  user: User;
  email: string;
  event: CloudEvent;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe('InvitationMailWorker (Kafka + SMTP + database)', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let smtp: SmtpTestServer;
  let mailer: NodemailerMailer;
  let kafka: Kafka;
  let admin: Admin;
  let producer: Producer;
  const workers: InvitationMailWorker[] = [];
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

  async function startWorker(topic: string, options: Partial<InvitationMailWorkerOptions> = {}): Promise<InvitationMailWorker> {
    const worker = new InvitationMailWorker({
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
  function tokensMailedTo(email: string): string[] {
    const tokens = smtp.messagesTo(email).map((m) => tokenFromText(m.parsed.text));
    for (const token of tokens) {
      expect(token).toBeDefined();
      sentTokens.push(token!);
    }
    return tokens as string[];
  }

  async function expectOneValidMailEach(invitees: Invitee[]): Promise<void> {
    for (const { user, email } of invitees) {
      const tokens = tokensMailedTo(email);
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

  // --- tests -----------------------------------------------------------------------------------

  let burst: { topic: string; invitees: Invitee[] } | undefined;

  it('N invitations → exactly N mails, each with a token whose sha256 is the stored token_hash', async () => {
    const topic = await newTopic(3);
    const invitees = await invite(6, 'burst');
    const worker = await startWorker(topic);
    await produce(topic, invitees.map((i) => message(i.event)));

    await smtp.waitFor((all) => invitees.every((i) => all.some((m) => m.envelopeTo.includes(i.email))), 20_000, 'one mail per invitee');
    await waitUntilCommitted(worker.groupId, topic);

    await expectOneValidMailEach(invitees);
    expect(await processedCount(invitees.map((i) => i.event.id))).toBe(6);
    const mail = smtp.messagesTo(invitees[0].email)[0];
    expect(mail.parsed.text).toContain(`https://ac.example.test/invitations/accept?token=`);
    burst = { topic, invitees };
  });

  it('a replay of the topic from the beginning by a new consumer group sends no new mail', async () => {
    expect(burst).toBeDefined();
    const { topic, invitees } = burst!;
    const before = smtp.messages.length;
    const hashes = await Promise.all(invitees.map((i) => storedTokenHash(i.user.id)));

    const replay = await startWorker(topic, { fromBeginning: true });
    await waitUntilCommitted(replay.groupId, topic);

    expect(smtp.messages.length).toBe(before);
    expect(await Promise.all(invitees.map((i) => storedTokenHash(i.user.id)))).toEqual(hashes);
    const duplicates = logLines.filter((line) => line.includes('handled: duplicate') && invitees.some((i) => line.includes(i.event.id)));
    expect(duplicates).toHaveLength(6);
  });

  it('one partition: different users\' mails go out at once, one user\'s events strictly in order', async () => {
    const topic = await newTopic(1);
    const invitees = await invite(8, 'parallel');
    // The first invitee's invitation is resent: its two events share a key and must not overlap.
    const first = invitees[0]!;
    first.user.resendInvitation({ by: ids.next(), role: member, now: new Date(), newId: () => ids.next() });
    const [resent] = first.user.pullDomainEvents();
    expect(resent?.type).toBe('UserInvitationResent');
    const resentEvent: CloudEvent = { ...first.event, id: resent!.id, type: resent!.type, time: resent!.occurredAt.toISOString(), data: resent!.data };
    await new TypeOrmAdapters(dataSource).users().update(first.user);

    const pooled = new NodemailerMailer({ smtpUrl: smtp.url, from: 'Access Control <no-reply@ac.example.test>', logger, maxConnections: 4 });
    try {
      smtp.setLatency(150);
      smtp.resetPeak();
      const worker = await startWorker(topic, { issueInvitation: buildIssueInvitation(dataSource, pooled), mailsInFlightPerPartition: 8 });
      await produce(topic, [message(first.event), message(resentEvent), ...invitees.slice(1).map((i) => message(i.event))]);
      await smtp.waitFor((all) => invitees.every((i) => all.some((m) => m.envelopeTo.includes(i.email))) && smtp.messagesTo(first.email).length === 2, 30_000, 'the mails');
      await waitUntilCommitted(worker.groupId, topic);

      // Several users' mails were in the SMTP server at once, on one partition.
      expect(smtp.peakDataInFlight).toBeGreaterThan(1);
      await expectOneValidMailEach(invitees.slice(1));
      // The resend was handled only after the first mail was accepted: its mail came at least one
      // SMTP latency later, and the live token is the resent one.
      const [invitedMail, resentMail] = smtp.messagesTo(first.email);
      expect(resentMail!.receivedAt.getTime() - invitedMail!.receivedAt.getTime()).toBeGreaterThanOrEqual(140);
      const tokens = tokensMailedTo(first.email);
      expect(sha256(tokens[1]!)).toBe(await storedTokenHash(first.user.id));
    } finally {
      smtp.setLatency(0);
      await pooled.close();
    }
  });

  it('SMTP answering 4xx for a while: the mail is delivered after retries, exactly once', async () => {
    const topic = await newTopic(1);
    const [invitee] = await invite(1, 'greylist');
    const faultsBefore = smtp.faults.length;
    smtp.failNext(4, 451);
    const worker = await startWorker(topic);
    await produce(topic, [message(invitee.event)]);

    await smtp.waitFor((all) => all.some((m) => m.envelopeTo.includes(invitee.email)), 20_000, 'the greylisted mail');
    await waitUntilCommitted(worker.groupId, topic);

    expect(smtp.faults.slice(faultsBefore)).toEqual(Array(4).fill({ command: 'MAIL FROM', code: 451 }));
    await expectOneValidMailEach([invitee]);
    const retries = logLines.filter((line) => line.includes('temporary failure; retrying') && line.includes(`"topic":"${topic}"`));
    expect(retries).toHaveLength(4);
    expect(retries.every((line) => line.includes('451'))).toBe(true);
  });

  it('a 5xx address and malformed messages go to the dead-letter topic; the next good message is still delivered', async () => {
    const topic = await newTopic(1);
    const [bounced, good] = await invite(2, 'dlq');
    smtp.rejectRecipient(bounced.email, 550);
    const withoutSubject = { ...good.event, id: ids.next(), subject: undefined, data: { email: 'x@example.com' } };
    const joined = { ...good.event, id: ids.next(), type: 'UserJoined' };
    const worker = await startWorker(topic);

    // One partition: the good message comes after every bad one.
    await produce(topic, [
      message(bounced.event, { headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' } }),
      { key: 'junk', value: '{"this is": not JSON' },
      { key: good.user.id, value: JSON.stringify(withoutSubject) },
      { key: good.user.id, value: JSON.stringify(joined) },
      message(good.event),
    ]);

    await smtp.waitFor((all) => all.some((m) => m.envelopeTo.includes(good.email)), 20_000, 'the good mail');
    await waitUntilCommitted(worker.groupId, topic);
    await expectOneValidMailEach([good]);
    expect(smtp.messagesTo(bounced.email)).toHaveLength(0);

    // The dead-letter topic has partitions of its own: put the letters back in source order.
    const dead = (await readTopic(worker.deadLetterTopic, 3)).sort(
      (a, b) => Number(header(a, 'x-dlq-source-offset')) - Number(header(b, 'x-dlq-source-offset')),
    );
    expect(dead).toHaveLength(3);
    const [first, second, third] = dead;

    expect(first.key?.toString()).toBe(bounced.user.id);
    expect(first.value?.toString()).toBe(JSON.stringify(bounced.event));
    expect(header(first, 'traceparent')).toBe('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
    expect(header(first, 'x-dlq-reason')).toBe('permanent-delivery-failure');
    expect(header(first, 'x-dlq-error')).toMatch(/550/);
    expect(header(first, 'x-dlq-source-topic')).toBe(topic);
    expect(header(first, 'x-dlq-source-offset')).toBe('0');
    expect(header(first, 'x-dlq-consumer-group')).toBe(worker.groupId);

    expect(second.key?.toString()).toBe('junk');
    expect(second.value?.toString()).toBe('{"this is": not JSON');
    expect(header(second, 'x-dlq-reason')).toBe('malformed-event');
    expect(header(second, 'x-dlq-error')).toBe('the message value is not JSON');
    expect(header(second, 'x-dlq-source-offset')).toBe('1');

    expect(header(third, 'x-dlq-reason')).toBe('malformed-event');
    expect(header(third, 'x-dlq-error')).toBe('UserInvited: subject and data.user_id are missing');
    expect(header(third, 'x-dlq-source-offset')).toBe('2');

    for (const m of dead) {
      const text = JSON.stringify(Object.fromEntries(Object.entries(m.headers ?? {}).map(([k, v]) => [k, v?.toString()])));
      expect(text).not.toContain(SMTP_PASSWORD);
      expect(text).not.toMatch(/token=/);
    }
    const deadLogged = logLines.filter((line) => line.includes('event dead-lettered') && line.includes(`"topic":"${topic}"`));
    expect(deadLogged).toHaveLength(3);
  });

  it('stopped mid-burst and started again: every invitation gets exactly one mail', async () => {
    const topic = await newTopic(3);
    const invitees = await invite(10, 'restart');
    smtp.setLatency(120);
    const groupId = `mailer-test-${randomUUID()}`;
    // One mail at a time per partition, so that stopping leaves some of the burst for the successor.
    const first = await startWorker(topic, { groupId, mailsInFlightPerPartition: 1 });
    await produce(topic, invitees.map((i) => message(i.event)));

    const mailedCount = () => invitees.filter((i) => smtp.messagesTo(i.email).length > 0).length;
    await smtp.waitFor(() => mailedCount() >= 3, 20_000, 'the burst to start');
    await first.stop();
    const atStop = mailedCount();
    expect(atStop).toBeLessThan(invitees.length); // really stopped mid-burst

    const second = await startWorker(topic, { groupId });
    await smtp.waitFor(() => mailedCount() === invitees.length, 30_000, 'every invitee mailed');
    await waitUntilCommitted(second.groupId, topic);

    await expectOneValidMailEach(invitees);
    expect(await processedCount(invitees.map((i) => i.event.id))).toBe(invitees.length);
  });

  it('its process killed mid-burst (SIGKILL) and a new one started: no invitation without a mail, at most the documented duplicate', async () => {
    const topic = await newTopic(3);
    const invitees = await invite(12, 'crash');
    smtp.setLatency(150);
    const groupId = `mailer-test-${randomUUID()}`;
    const concurrency = 2;
    const inFlight = 2;

    const fixtures = path.join(__dirname, 'fixtures');
    const child = spawn(process.execPath, ['--require', path.join(fixtures, 'register-ts.js'), path.join(fixtures, 'worker-process.fixture.ts')], {
      env: {
        ...process.env,
        FIXTURE_DB_KIND: db.config.kind,
        FIXTURE_DB_URL: db.url,
        FIXTURE_SMTP_URL: smtp.url,
        FIXTURE_KAFKA_BROKERS: brokers.join(','),
        FIXTURE_TOPIC: topic,
        FIXTURE_GROUP_ID: groupId,
        FIXTURE_CONCURRENCY: String(concurrency),
        FIXTURE_IN_FLIGHT: String(inFlight),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let childOutput = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      childOutput += chunk.toString();
      logLines.push(...chunk.toString().split('\n').filter(Boolean));
    });
    child.stderr?.on('data', (chunk: Buffer) => (childOutput += chunk.toString()));
    const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));

    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the fixture worker did not get ready:\n${childOutput}`)), 30_000);
      const check = () => {
        if (childOutput.includes('fixture worker ready')) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout?.on('data', check);
      void exited.then(() => reject(new Error(`the fixture worker exited:\n${childOutput}`)));
    });

    await produce(topic, invitees.map((i) => message(i.event)));
    const mailedCount = () => invitees.filter((i) => smtp.messagesTo(i.email).length > 0).length;
    await smtp.waitFor(() => mailedCount() >= 4, 20_000, 'the burst to start');
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    const atKill = mailedCount();
    expect(atKill).toBeLessThan(invitees.length); // really killed mid-burst

    const successor = await startWorker(topic, { groupId, partitionsConsumedConcurrently: concurrency });
    await smtp.waitFor(() => mailedCount() === invitees.length, 40_000, 'every invitee mailed');
    await waitUntilCommitted(successor.groupId, topic, 40_000);

    // No invitation without a mail; a second mail only for what was in flight when the process died
    // (accepted by the mail server, not yet recorded): at most one per mail in flight.
    const counts = invitees.map((i) => smtp.messagesTo(i.email).length);
    expect(counts.every((n) => n === 1 || n === 2)).toBe(true);
    expect(counts.filter((n) => n === 2).length).toBeLessThanOrEqual(concurrency * inFlight);
    for (const { user, email } of invitees) {
      const tokens = tokensMailedTo(email);
      // The last mail holds the live token; an earlier duplicate's token was replaced.
      expect(sha256(tokens[tokens.length - 1])).toBe(await storedTokenHash(user.id));
    }
    expect(await processedCount(invitees.map((i) => i.event.id))).toBe(invitees.length);
  });

  it('started before its topic exists, on a broker that would auto-create it: waits, not ready, creates nothing, and consumes once the topic is created', async () => {
    const topic = `mailer-test-${randomUUID()}`;
    const worker = new InvitationMailWorker({
      issueInvitation: buildIssueInvitation(dataSource, mailer),
      logger,
      kafka: { brokers, clientId: 'mailer-test-worker', topic },
      groupId: `mailer-test-${randomUUID()}`,
      reconnect: { initialMs: 100, maxMs: 500 },
      heartbeatIntervalMs: 500,
      sessionTimeoutMs: 6_000,
      maxWaitTimeMs: 250,
    });
    workers.push(worker);
    let started = false;
    void worker.start().then(() => (started = true));
    const until = async (check: () => boolean | Promise<boolean>, what: string) => {
      const deadline = Date.now() + 30_000;
      while (!(await check())) {
        if (Date.now() > deadline) throw new Error(`still waiting for ${what}: ${JSON.stringify(worker.status())}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };

    await until(() => worker.status().condition === 'topic-missing', 'the worker to wait for its topic');
    const waitingSince = worker.status().since;
    // A few more attempts: still waiting, still not there (nobody asked the broker to auto-create it).
    await until(() => Date.now() - Date.parse(waitingSince) > 1_000, 'a few attempts');
    expect(worker.status()).toMatchObject({ ready: false, state: 'waiting', condition: 'topic-missing' });
    expect(await admin.listTopics()).not.toContain(topic);
    expect(started).toBe(false);

    await admin.createTopics({ topics: [{ topic, numPartitions: 2, replicationFactor: 1 }], waitForLeaders: true });
    await until(() => started, 'start() to resolve once the consumer has joined');
    expect(worker.status()).toMatchObject({ ready: true, state: 'consuming' });
    const [invitee] = await invite(1, 'late-topic');
    await produce(topic, [message(invitee!.event)]);
    await smtp.waitFor(() => smtp.messagesTo(invitee!.email).length === 1, 20_000, 'the invitation mail');
    await expectOneValidMailEach([invitee!]);
  });

  it('stopped while it waits for its topic: start() and stop() both return, and it says it is stopped', async () => {
    const worker = new InvitationMailWorker({
      issueInvitation: buildIssueInvitation(dataSource, mailer),
      logger,
      kafka: { brokers, clientId: 'mailer-test-worker', topic: `mailer-test-${randomUUID()}` },
      groupId: `mailer-test-${randomUUID()}`,
      reconnect: { initialMs: 100, maxMs: 500 },
    });
    const starting = worker.start();
    const deadline = Date.now() + 30_000;
    while (worker.status().condition !== 'topic-missing' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(worker.status().condition).toBe('topic-missing');

    await worker.stop();
    await starting;
    expect(worker.status()).toMatchObject({ ready: false, state: 'stopped' });
  });
});
