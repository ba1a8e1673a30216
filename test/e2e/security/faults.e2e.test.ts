import { randomUUID } from 'node:crypto';
import { logLevel, Partitioners } from 'kafkajs';
import { Kafka } from '../../../src/infrastructure/messaging/kafka-client';
import type { DataSource } from 'typeorm';
import type { Role } from '../../../src/domain/roles/role';
import { Email } from '../../../src/domain/users/email';
import { User } from '../../../src/domain/users/user';
import { createLogger } from '../../../src/infrastructure/logging/logger';
import { NodemailerMailer } from '../../../src/infrastructure/mail/nodemailer-mailer';
import { SEEDED_ROLES } from '../../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { createDataSource } from '../../../src/infrastructure/persistence/typeorm/data-source';
import { runMigrations } from '../../../src/infrastructure/persistence/typeorm/migrate';
import { TypeOrmAdapters } from '../../support/typeorm-adapters';
import { UuidV7IdGenerator } from '../../../src/infrastructure/system/uuid-v7-id-generator';
import { KafkaMailWorker } from '../../../src/infrastructure/messaging/consumer/kafka-mail-worker';
import { buildIssueInvitation, invitedCloudEvent } from '../../integration/mailer/fixtures/issue-invitation.fixture';
import { SmtpTestServer, tokenFromText } from '../../support/smtp-test-server';
import { createTestDatabase, type TestDatabase } from '../../support/test-database';
import { ADMIN, startTestApp, type TestApp, type TestResponse } from '../../support/test-app';
import { CuttableProxy } from '../../support/cuttable-proxy';


const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('faults: the database goes away and comes back', () => {
  let real: TestDatabase;
  let proxy: CuttableProxy;
  let app: TestApp;

  beforeAll(async () => {
    real = await createTestDatabase('ac_faults');
    const target = new URL(real.url);
    proxy = await CuttableProxy.start(target.hostname, Number(target.port || 3306));
    const viaProxy = new URL(real.url);
    // The proxy listens on loopback, wherever the database is (a container's mapped port elsewhere).
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    app = await startTestApp({}, {}, { url: viaProxy.href, config: { ...real.config, url: viaProxy.href } as TestDatabase['config'], drop: () => real.drop() });
  });
  afterAll(async () => {
    await app?.close();
    await proxy?.close();
  });

  it('answers 503 problem+json with Retry-After (never 500) within 5 s while cut, recovers by itself, loses no acknowledged write', async () => {
    const token = await app.signIn();
    const invite = (email: string) => app.request('POST', '/v1/users/invite', { token, json: { email } });
    const acknowledged: string[] = [];
    const refused: string[] = [];
    const record = (email: string, response: TestResponse) => (response.status === 201 ? acknowledged : refused).push(email);

    for (let i = 0; i < 5; i++) record(`before-${i}@example.com`, await invite(`before-${i}@example.com`));
    expect(acknowledged).toHaveLength(5);

    proxy.cut();
    await sleep(2_100); // past the role and permission caches (2 s): requests must reach the database
    const during = await Promise.all(
      [
        ...Array.from({ length: 5 }, (_, i) => ['POST', `during-${i}@example.com`] as const),
        ['GET', '/v1/users'] as const,
        ['GET', '/v1/permissions'] as const,
      ].map(async ([method, what]) => {
        const started = Date.now();
        const response = method === 'POST' ? await invite(what) : await app.request('GET', what, { token });
        if (method === 'POST') record(what, response);
        return { what, response, elapsed: Date.now() - started };
      }),
    );
    for (const { what, response, elapsed } of during) {
      expect({ what, status: response.status, code: response.body?.code }).toEqual({ what, status: 503, code: 'SERVICE_UNAVAILABLE' });
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(response.text).not.toMatch(/ECONN|ER_|SELECT|INSERT|\.ts:/);
      expect(elapsed).toBeLessThan(5_000);
    }
    expect((await app.request('GET', '/readyz')).status).toBe(503);
    expect((await app.request('GET', '/healthz')).status).toBe(200);

    proxy.restore();
    const restoredAt = Date.now();
    let ready = 0;
    while (Date.now() - restoredAt < 10_000) {
      if ((await app.request('GET', '/readyz')).status === 200) {
        ready = Date.now() - restoredAt;
        break;
      }
      await sleep(100);
    }
    expect(ready).toBeGreaterThan(0);
    expect(ready).toBeLessThan(10_000);

    for (let i = 0; i < 5; i++) record(`after-${i}@example.com`, await invite(`after-${i}@example.com`));
    expect(acknowledged).toHaveLength(10);
    expect(refused).toHaveLength(5);

    const rows: { email_key: string }[] = await app.api.container.cradle.dataSource.query('SELECT email_key FROM users');
    const stored = new Set(rows.map((r) => r.email_key));
    expect(acknowledged.filter((email) => !stored.has(email))).toEqual([]); // 0 acknowledged writes lost
    // A write answered 503 may or may not have landed; here none could (the connection was gone).
    expect(refused.filter((email) => stored.has(email))).toEqual([]);
  });

  it('answers a refresh whose commit was lost on the way back with its new tokens: the session goes on, no reuse is seen', async () => {
    const signedIn = await app.request('POST', '/v1/auth/signin', { json: { username: ADMIN.username, password: ADMIN.password } });
    expect(signedIn.status).toBe(200);
    const first = signedIn.body.refreshToken as string;
    // The database commits the exchange; its answer never reaches the service, and the database is away 1.5 s.
    proxy.loseNextCommit({ forward: true, refuseMs: 1_500, after: 'refresh_tokens' });
    const started = Date.now();
    const exchanged = await app.request('POST', '/v1/auth/refresh', { json: { refreshToken: first } });
    expect({ status: exchanged.status, code: exchanged.body?.code }).toEqual({ status: 200, code: undefined });
    expect(Date.now() - started).toBeLessThan(5_000);
    // The successor works; the first is used (a retry of it now would be a reuse, which nothing here sent).
    const next = await app.request('POST', '/v1/auth/refresh', { json: { refreshToken: exchanged.body.refreshToken } });
    expect(next.status).toBe(200);
    const reuses: { n: number }[] = await app.api.container.cradle.dataSource.query("SELECT COUNT(*) AS n FROM audit_events WHERE action = 'auth.refresh_reuse_detected'");
    expect(Number(reuses[0]!.n)).toBe(0);
  });

  it('refuses a password-reset request 503 while cut, whatever the address (never a 202 whose mail might not come), and takes it once back', async () => {
    // The limits off: counted in the database, they skip a count they cannot make, so only the route's own check answers.
    const unlimited = await startTestApp({ ADDRESS_RATE_LIMIT: '0', PASSWORD_RESET_RATE_LIMIT: '0' }, {}, app.database);
    const reset = (email: string) => unlimited.request('POST', '/v1/auth/password-reset', { json: { email } });
    proxy.cut();
    try {
      for (const email of ['admin@example.com', 'nobody@example.com']) {
        const started = Date.now();
        const response = await reset(email);
        expect({ email, status: response.status, code: response.body?.code }).toEqual({ email, status: 503, code: 'SERVICE_UNAVAILABLE' });
        expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(Date.now() - started).toBeLessThan(5_000);
      }
    } finally {
      proxy.restore();
    }
    const restoredAt = Date.now();
    let answer = await reset('admin@example.com');
    while (answer.status === 503 && Date.now() - restoredAt < 10_000) {
      await sleep(100);
      answer = await reset('admin@example.com');
    }
    expect(answer.status).toBe(202);
    await unlimited.api.close();
  });
});

/**
 * The production mail path: the mailer worker consuming UserInvited from Kafka, sending through a
 * real SMTP server that refuses a quarter of its commands (MAIL FROM, RCPT TO, DATA) with 451.
 * (The embedded in-process path is not used here: there one refused mail fails the relay's whole
 * pass, whose backoff grows to 30 s, so 30 mails at 25 % refusal take minutes; see docs/SECURITY.md.)
 */
describe('faults: the database stops answering without closing (a failover, a path that drops packets)', () => {
  let proxy: CuttableProxy;
  let app: TestApp;
  const QUERY_TIMEOUT_MS = 2_000;

  beforeAll(async () => {
    const { proxy: started, database } = await CuttableProxy.before(await createTestDatabase('ac_faults_silent'));
    proxy = started;
    app = await startTestApp({ DATABASE_QUERY_TIMEOUT: `${QUERY_TIMEOUT_MS}ms`, SEARCH_TIME_LIMIT: '1s' }, {}, database);
  });
  afterAll(async () => {
    await app?.close();
    await proxy?.close();
  });

  it('answers 503 while it is silent (never hangs), drops the silent connections, and serves again by itself once it answers', async () => {
    const token = await app.signIn();
    for (let i = 0; i < 5; i++) expect((await app.request('GET', '/v1/users', { token })).status).toBe(200);

    proxy.blackhole();
    await sleep(2_100); // past the role and permission caches (2 s): requests must reach the database
    const started = Date.now();
    const during = await Promise.all([
      app.request('GET', '/v1/users', { token }),
      app.request('POST', '/v1/users/invite', { token, json: { email: 'silent-1@example.com' } }),
      app.request('GET', `/v1/users?page=2`, { token }),
    ]);
    // A pooled connection's statement fails after the query timeout, a new connection's handshake as soon: a request
    // that meets both (a statement, then a connection opened for the next) answers within two of them.
    expect(Date.now() - started).toBeLessThan(2 * QUERY_TIMEOUT_MS + 1_500);
    for (const response of during) {
      expect({ status: response.status, code: response.body.code }).toEqual({ status: 503, code: 'SERVICE_UNAVAILABLE' });
      expect(response.headers.get('retry-after')).toBe('2');
    }

    // The silent connections stay silent (their peer is gone): only connections opened now reach the database.
    proxy.restore();
    const deadline = Date.now() + 15_000;
    let status = 0;
    while (Date.now() < deadline && status !== 200) {
      status = (await app.request('GET', '/v1/users', { token })).status;
      if (status !== 200) await sleep(250);
    }
    expect(status).toBe(200);
    // And it stays served: no silent connection is left in the pool to be handed out again.
    const after = await Promise.all(Array.from({ length: 12 }, () => app.request('GET', '/v1/users?page_size=5', { token })));
    expect(after.map((response) => response.status)).toEqual(Array(12).fill(200));
  });
});

describe('faults: the SMTP server refuses a quarter of its commands at random', () => {
  const brokers = (process.env.KAFKA_BROKERS ?? '').split(',').filter(Boolean);
  const ids = new UuidV7IdGenerator();
  const logger = createLogger('silent');
  let db: TestDatabase;
  let dataSource: DataSource;
  let smtp: SmtpTestServer;
  let mailer: NodemailerMailer;
  let kafka: Kafka;
  let worker: KafkaMailWorker | undefined;

  beforeAll(async () => {
    db = await createTestDatabase('ac_faults_smtp');
    dataSource = createDataSource(db.config, { poolSize: 5 });
    await dataSource.initialize();
    await runMigrations(dataSource);
    smtp = await SmtpTestServer.start();
    mailer = new NodemailerMailer({ smtpUrl: smtp.url, from: 'Access Control <no-reply@ac.example.test>', logger });
    kafka = new Kafka({ clientId: 'faults-test', brokers, logLevel: logLevel.NOTHING });
  });
  afterAll(async () => {
    await worker?.stop();
    await mailer?.close();
    await smtp?.close();
    if (dataSource?.isInitialized) await dataSource.destroy();
    await db?.drop();
  });

  it('30 invitations → exactly 30 distinct recipients mailed within the retry budget (40 s), none lost, faults really injected', async () => {
    const topic = `faults-smtp-${randomUUID()}`;
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 3, replicationFactor: 1 }], waitForLeaders: true });
    await admin.disconnect();

    const member: Role = { id: SEEDED_ROLES.member, name: 'member', permissions: [] };
    const users = new TypeOrmAdapters(dataSource).users();
    const events = [];
    const emails: string[] = [];
    for (let i = 0; i < 30; i++) {
      const email = `greylisted-${i}@example.com`;
      const user = User.invite({ id: ids.next(), email: Email.parse(email), role: member, invitedBy: ids.next(), now: new Date(), newId: () => ids.next() });
      await users.add(user);
      events.push(invitedCloudEvent(user));
      emails.push(email);
    }

    smtp.refuseRandomly(0.25);
    worker = new KafkaMailWorker({
      issueInvitation: buildIssueInvitation(dataSource, mailer),
      logger,
      kafka: { brokers, clientId: 'faults-test-worker', topic },
      groupId: `faults-test-${randomUUID()}`,
      retry: { initialDelayMs: 20, maxDelayMs: 200 },
      heartbeatIntervalMs: 500,
      sessionTimeoutMs: 6_000,
      maxWaitTimeMs: 250,
    });
    await worker.start();
    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    await producer.send({ topic, acks: -1, messages: events.map((e) => ({ key: e.subject, value: JSON.stringify(e) })) });
    await producer.disconnect();

    const mailed = () => new Set(smtp.messages.flatMap((m) => m.envelopeTo.map((to) => to.toLowerCase())));
    await smtp.waitFor(() => emails.every((e) => mailed().has(e)), 40_000, 'a mail to each of the 30 invitees');

    expect(emails.filter((e) => !mailed().has(e))).toEqual([]);
    expect([...mailed()].filter((to) => !emails.includes(to))).toEqual([]);
    expect(mailed().size).toBe(30);
    expect(smtp.faults.length).toBeGreaterThan(0); // the server did refuse commands
    for (const email of emails) expect(tokenFromText((await smtp.messagesTo(email).at(-1)?.parsed())?.text)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
