/**
 * The built mailer process (`node dist/src/interfaces/mailer/main.js`) run the way its users run
 * it on a fresh cluster: started first, before its broker (which auto-creates no topic) is up and
 * before anything created the events topic. It must stay alive and say it is not ready, become ready once the
 * migrate step (`node dist/src/interfaces/cli/migrate.js`) created the topics, mail invitations,
 * and live through its broker going away and coming back. Needs a broker of its own (auto-creation
 * off, stopped and restarted): a LocalKafkaBroker, started whatever the run's shared broker is.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { logLevel, Partitioners, type Producer } from 'kafkajs';
import { Kafka } from '../../../src/infrastructure/messaging/kafka-client';
import type { DataSource } from 'typeorm';
import type { Role } from '../../../src/domain/roles/role';
import { Email } from '../../../src/domain/users/email';
import { User } from '../../../src/domain/users/user';
import { SEEDED_ROLES } from '../../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { createDataSource } from '../../../src/infrastructure/persistence/typeorm/data-source';
import { TypeOrmAdapters } from '../../support/typeorm-adapters';
import { UuidV7IdGenerator } from '../../../src/infrastructure/system/uuid-v7-id-generator';
import { LocalKafkaBroker, localKafkaUnavailable } from '../../support/local-kafka';
import { SmtpTestServer, tokenFromText } from '../../support/smtp-test-server';
import { CuttableProxy } from '../../support/cuttable-proxy';
import { createTestDatabase, type TestDatabase } from '../../support/test-database';
import { invitedCloudEvent } from './fixtures/issue-invitation.fixture';
import { retentionOf } from '../messaging/kafka-test-kit';

jest.setTimeout(180_000);

const ROOT = path.resolve(__dirname, '../../..');
const MAILER = path.join(ROOT, 'dist/src/interfaces/mailer/main.js');
const MIGRATE = path.join(ROOT, 'dist/src/interfaces/cli/migrate.js');
const SMTP_PASSWORD = 'smtp-process-Pa55word';
const PARTITIONS = 3;
const ids = new UuidV7IdGenerator();
const member: Role = { id: SEEDED_ROLES.member, name: 'member', permissions: [] };

interface LogLine {
  level: number;
  msg: string;
  condition?: string;
  metrics?: string;
}

type Exit = { code: number | null; signal: NodeJS.Signals | null } | null;

interface Probe {
  status: number;
  body: { ready?: boolean; state?: string; condition?: string; database?: string };
}

const noOwnBroker = localKafkaUnavailable();

describe('the mailer process on a fresh cluster', () => {
  if (noOwnBroker) {
    it.skip(`skipped: ${noOwnBroker}`, () => undefined);
    return;
  }

  let broker: LocalKafkaBroker;
  let db: TestDatabase;
  /** Between the mailer and its database, to cut. */
  let proxy: CuttableProxy;
  let smtp: SmtpTestServer;
  let dataDir: string;
  let env: Record<string, string>;
  let mailer: ChildProcess;
  let exit: Exit = null;
  const output: string[] = [];
  const lines: LogLine[] = [];
  let probeBase: string;
  let dataSource: DataSource | undefined;
  let producer: Producer | undefined;
  const topic = `user-events-${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    if (!existsSync(MAILER) || !existsSync(MIGRATE)) execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
    [broker, db, smtp] = await Promise.all([
      LocalKafkaBroker.start({ properties: { 'auto.create.topics.enable': false } }),
      createTestDatabase('ac_mailer_process'),
      SmtpTestServer.start({ username: 'mailer', password: SMTP_PASSWORD }),
    ]);
    // Not up yet when the mailer starts.
    await broker.stop();
    let viaProxy: TestDatabase;
    ({ proxy, database: viaProxy } = await CuttableProxy.before(db));
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'ac-mailer-process-'));
    env = {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: viaProxy.url,
      KAFKA_BROKERS: broker.brokers,
      KAFKA_TOPIC: topic,
      KAFKA_TOPIC_PARTITIONS: String(PARTITIONS),
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Access Control <no-reply@process.example.test>',
      PUBLIC_URL: 'https://process.example.test',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      // Debug, to see every retry it makes; its warnings must still come once per state change.
      LOG_LEVEL: 'debug',
      MAILER_GROUP_ID: `mailer-${topic}`,
      MAILER_METRICS_PORT: '0',
    };
    mailer = spawn(process.execPath, [MAILER], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let partial = '';
    mailer.stdout!.on('data', (chunk: Buffer) => {
      output.push(chunk.toString());
      const text = partial + chunk.toString();
      const complete = text.split('\n');
      partial = complete.pop() ?? '';
      for (const line of complete.filter(Boolean)) {
        try {
          lines.push(JSON.parse(line) as LogLine);
        } catch {
          /* not a log line */
        }
      }
    });
    mailer.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    mailer.once('exit', (code, signal) => (exit = { code, signal }));
    await until(() => lines.some((l) => l.metrics !== undefined), 30_000, 'the mailer to serve its probes');
    probeBase = lines.find((l) => l.metrics !== undefined)!.metrics!.replace(/\/metrics$/, '');
  });

  afterAll(async () => {
    let stopped: Exit = exit;
    if (mailer && !exit) {
      const exited = new Promise<Exit>((resolve) => mailer.once('exit', (code, signal) => resolve({ code, signal })));
      mailer.kill('SIGTERM');
      const killer = setTimeout(() => mailer.kill('SIGKILL'), 40_000);
      stopped = await exited;
      clearTimeout(killer);
    }
    await producer?.disconnect().catch(() => undefined);
    if (dataSource?.isInitialized) await dataSource.destroy();
    await broker?.destroy();
    await proxy?.close();
    await smtp?.close();
    await db?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    // It stops cleanly on SIGTERM, and no secret reached its log.
    expect(stopped).toEqual({ code: 0, signal: null });
    expect(output.join('')).not.toContain(SMTP_PASSWORD);
    expect(output.join('')).not.toMatch(/token=[A-Za-z0-9_-]{20,}/);
  });

  async function probe(route: '/readyz' | '/healthz'): Promise<Probe> {
    const response = await fetch(`${probeBase}${route}`);
    return { status: response.status, body: (await response.json()) as Probe['body'] };
  }

  async function until(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (exit) throw new Error(`the mailer exited (${JSON.stringify(exit)}) while waiting for ${what}:\n${output.join('').slice(-4000)}`);
      if (Date.now() > deadline) throw new Error(`still waiting for ${what} after ${timeoutMs} ms:\n${output.join('').slice(-4000)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  const readyIs = (status: number) => async () => (await probe('/readyz')).status === status;
  const warningsAbout = (msg: RegExp) => lines.filter((l) => l.level >= 40 && msg.test(l.msg));

  async function inviteAndExpectMail(label: string): Promise<void> {
    dataSource ??= await createDataSource(db.config, { poolSize: 2 }).initialize();
    if (!producer) {
      producer = new Kafka({ clientId: 'mailer-process-test', brokers: [broker.brokers], logLevel: logLevel.NOTHING }).producer({
        createPartitioner: Partitioners.DefaultPartitioner,
        allowAutoTopicCreation: false,
      });
      await producer.connect();
    }
    const email = `${label}-${randomUUID().slice(0, 8)}@example.com`;
    const user = User.invite({ id: ids.next(), email: Email.parse(email), role: member, invitedBy: ids.next(), now: new Date(), newId: () => ids.next() });
    const event = invitedCloudEvent(user);
    await new TypeOrmAdapters(dataSource).users().add(user);
    await producer.send({ topic, acks: -1, messages: [{ key: event.subject, value: JSON.stringify(event) }] });
    await smtp.waitFor(() => smtp.messagesTo(email).length > 0, 30_000, `the invitation mail to ${email}`);
    expect(tokenFromText((await smtp.messagesTo(email)[0]!.parsed()).text)).toBeTruthy();
  }

  it('started before its broker is up and before its topic exists: stays alive, /healthz 200, /readyz 503 with the reason, one warning per condition however often it retries', async () => {
    const retries = (condition: string) => lines.filter((l) => l.msg === 'still waiting' && l.condition === condition).length;
    await until(async () => (await probe('/readyz')).body.condition === 'broker-unreachable', 30_000, '/readyz to report the broker away');
    await until(() => retries('broker-unreachable') >= 2, 30_000, 'two more attempts');
    expect((await probe('/healthz')).status).toBe(200);

    await broker.restart();
    await until(async () => (await probe('/readyz')).body.condition === 'topic-missing', 60_000, '/readyz to report the missing topic');
    await until(() => retries('topic-missing') >= 2, 30_000, 'two more attempts');

    expect(await probe('/readyz')).toEqual({ status: 503, body: expect.objectContaining({ ready: false, state: 'waiting', condition: 'topic-missing' }) });
    expect((await probe('/healthz')).status).toBe(200);
    expect(exit).toBeNull();
    expect(warningsAbout(/not consuming/).map((l) => l.condition)).toEqual(['broker-unreachable', 'topic-missing']);
  });

  it('the migrate step creates the topics with the configured partitions; the mailer becomes ready by itself and mails an invitation', async () => {
    // Straight to the database: the proxy runs in this process, which spawnSync holds until the step ends.
    const migrate = spawnSync(process.execPath, [MIGRATE], { env: { ...env, DATABASE_URL: db.url, LOG_LEVEL: 'info' }, encoding: 'utf8', timeout: 60_000 });
    expect({ status: migrate.status, stderr: migrate.stderr }).toEqual({ status: 0, stderr: '' });
    expect(migrate.stdout).toMatch(/^applied: /);
    // The mailer may have created its dead-letter topic itself already: either way both exist afterwards.
    expect(migrate.stdout).toMatch(new RegExp(`^kafka topics created: ${topic}(, |$)`, 'm'));

    const admin = new Kafka({ clientId: 'mailer-process-test', brokers: [broker.brokers], logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      const { topics } = await admin.fetchTopicMetadata({ topics: [topic, `${topic}.mailer-dlq`] });
      expect(topics.find((t) => t.name === topic)?.partitions).toHaveLength(PARTITIONS);
      expect(topics.map((t) => t.name).sort()).toEqual([topic, `${topic}.mailer-dlq`].sort());
    } finally {
      await admin.disconnect();
    }
    // Whichever of the two made the dead-letter topic, it keeps its letters for good, as the events topic its events.
    expect(await retentionOf(broker.brokers, [topic, `${topic}.mailer-dlq`])).toEqual({ [topic]: '-1', [`${topic}.mailer-dlq`]: '-1' });

    await until(readyIs(200), 60_000, '/readyz 200');
    expect((await probe('/readyz')).body).toMatchObject({ ready: true, state: 'consuming' });
    expect(lines.some((l) => l.msg === 'consuming again')).toBe(true);
    await inviteAndExpectMail('first');
  });

  it('its database cut: not ready within 5 s, saying why, and alive; restored: ready again by itself, and invitations are mailed', async () => {
    await until(readyIs(200), 60_000, '/readyz 200 before the cut');
    proxy.cut();
    try {
      const cutAt = Date.now();
      await until(readyIs(503), 10_000, '/readyz 503 with the database cut');
      expect(Date.now() - cutAt).toBeLessThan(5_000);
      expect(await probe('/readyz')).toEqual({ status: 503, body: expect.objectContaining({ ready: false, state: 'consuming', database: 'down' }) });
      expect((await probe('/healthz')).status).toBe(200);
    } finally {
      proxy.restore();
    }
    await until(readyIs(200), 30_000, '/readyz 200 after the database came back');
    expect((await probe('/readyz')).body).toMatchObject({ ready: true, database: 'up' });
    await inviteAndExpectMail('after-database-cut');
    expect(exit).toBeNull();
  });

  it('its broker stopped: not ready and alive; restarted: ready again by itself, and invitations are mailed', async () => {
    const warningsBefore = lines.filter((l) => l.level >= 40).length;
    await broker.stop();
    await until(readyIs(503), 60_000, '/readyz 503 with the broker stopped');
    expect((await probe('/healthz')).status).toBe(200);
    expect(exit).toBeNull();

    await broker.restart();
    await until(readyIs(200), 120_000, '/readyz 200 after the broker restarted');
    await inviteAndExpectMail('after-restart');
    expect(exit).toBeNull();
    // One warning per change of condition, not one per retry.
    const warnings = lines.filter((l) => l.level >= 40).slice(warningsBefore);
    expect(warnings.length).toBeLessThanOrEqual(4);
    expect(warnings.every((l) => /not consuming/.test(l.msg))).toBe(true);
  });
});
