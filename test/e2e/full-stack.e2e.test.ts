/**
 * The whole path across real processes, as a deployment runs it: the built api and mailer
 * (node dist/…), a real MariaDB, a real Kafka broker and a real SMTP server (in this process).
 * HTTP invite → outbox → relay → Kafka → mailer → SMTP → the page at the link → accept → sign in.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { logLevel } from 'kafkajs';
import { Kafka } from '../../src/infrastructure/messaging/kafka-client';
import { LocalKafkaBroker, localKafkaUnavailable } from '../support/local-kafka';
import { SmtpTestServer, tokenFromText } from '../support/smtp-test-server';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { freePort } from '../support/free-port';

jest.setTimeout(120_000);

const ROOT = path.resolve(__dirname, '../..');
const API = path.join(ROOT, 'dist/src/interfaces/http/main.js');
const MAILER = path.join(ROOT, 'dist/src/interfaces/mailer/main.js');
const ADMIN = { username: 'stack.admin', password: 'stack-admin-password', email: 'stack.admin@example.com' };

interface Running {
  child: ChildProcess;
  output: string[];
}


function startProcess(script: string, env: Record<string, string>, readyLine: RegExp): Promise<Running> {
  const child = spawn(process.execPath, [script], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${path.basename(script)} not ready in 30 s:\n${output.join('').slice(-3000)}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output.push(chunk.toString());
      if (readyLine.test(chunk.toString())) {
        clearTimeout(timer);
        resolve({ child, output });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${path.basename(script)} exited with ${code}:\n${output.join('').slice(-3000)}`));
    });
  });
}

async function stopProcess(running: Running | undefined): Promise<number | null> {
  if (!running || running.child.exitCode !== null) return running?.child.exitCode ?? null;
  const exited = new Promise<number | null>((resolve) => running.child.once('exit', (code) => resolve(code)));
  running.child.kill('SIGTERM');
  const timer = setTimeout(() => running.child.kill('SIGKILL'), 20_000);
  const code = await exited;
  clearTimeout(timer);
  return code;
}

describe('the whole stack across processes', () => {
  let db: TestDatabase;
  let smtp: SmtpTestServer;
  let ownBroker: LocalKafkaBroker | undefined;
  let brokers: string;
  let api: Running;
  let mailer: Running;
  let baseUrl: string;
  let dataDir: string;
  const topic = `user-events-${randomUUID().slice(0, 8)}`;
  let env: Record<string, string>;

  beforeAll(async () => {
    if (!existsSync(API) || !existsSync(MAILER)) execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
    // A broker of our own when we can provision one, so the outage test can stop and restart it.
    // A broker of its own, to stop during the outage test; the run's shared one only where none can start.
    if (!localKafkaUnavailable()) ownBroker = await LocalKafkaBroker.start();
    brokers = ownBroker?.brokers ?? process.env.KAFKA_BROKERS!;
    const admin = new Kafka({ clientId: 'stack-test', brokers: brokers.split(','), logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 3 }], waitForLeaders: true });
    await admin.disconnect();

    db = await createTestDatabase();
    smtp = await SmtpTestServer.start({ username: 'mailer', password: 'smtp-secret-password' });
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'ac-stack-'));
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    env = {
      DATABASE_URL: db.url,
      KAFKA_BROKERS: brokers,
      KAFKA_TOPIC: topic,
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Access Control <no-reply@stack.example.test>',
      PUBLIC_URL: baseUrl,
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_PASSWORD: ADMIN.password,
      ADMIN_EMAIL: ADMIN.email,
      MAILER_GROUP_ID: `mailer-${topic}`,
      MAILER_METRICS_PORT: '0',
      METRICS_PORT: '0',
    };
    api = await startProcess(API, env, /access-control ready/);
    mailer = await startProcess(MAILER, env, /mailer ready/);
  });

  afterAll(async () => {
    const codes = [await stopProcess(api), await stopProcess(mailer)];
    await ownBroker?.destroy();
    await smtp?.close();
    await db?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    // Both processes stop cleanly on SIGTERM.
    expect(codes).toEqual([0, 0]);
    // No secret reached a log line of either process.
    const logs = [...(api?.output ?? []), ...(mailer?.output ?? [])].join('');
    expect(logs).not.toContain(ADMIN.password);
    expect(logs).not.toContain('smtp-secret-password');
    expect(logs).not.toMatch(/token=[A-Za-z0-9_-]{20,}/);
  });

  async function http(method: string, target: string, body?: unknown, token?: string) {
    const response = await fetch(`${baseUrl}${target}`, {
      method,
      headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await response.text();
    return { status: response.status, text, json: text && response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : undefined };
  }

  async function adminToken(): Promise<string> {
    const response = await http('POST', '/v1/auth/signin', { username: ADMIN.username, password: ADMIN.password });
    expect(response.status).toBe(200);
    return response.json.accessToken;
  }

  it('invites, mails the link over SMTP, shows the page, joins, and the new user signs in', async () => {
    const token = await adminToken();
    expect((await http('POST', '/v1/users/invite', { email: 'stack.joiner@example.com', name: 'Stack Joiner' }, token)).status).toBe(201);

    await smtp.waitFor((messages) => messages.some((m) => m.envelopeTo.includes('stack.joiner@example.com')), 20_000, 'the invitation mail');
    const mail = await smtp.messagesTo('stack.joiner@example.com')[0]!.parsed();
    expect(mail.from).toContain('no-reply@stack.example.test');
    expect(mail.html).toContain('/invitations/accept?token=');
    const secret = tokenFromText(mail.text)!;
    expect(secret).toBeTruthy();

    const page = await http('GET', `/invitations/accept?token=${secret}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('stack.joiner@example.com');

    const accepted = await http('POST', '/v1/invitations/accept', { token: secret, name: 'Stack Joiner', username: 'stack.joiner', password: 'stack joiner passphrase' });
    expect(accepted.status).toBe(200);
    const signIn = await http('POST', '/v1/auth/signin', { username: 'stack.joiner', password: 'stack joiner passphrase' });
    expect(signIn.status).toBe(200);
    expect(signIn.json.role.name).toBe('member');
  });

  it('resets a forgotten password: the request goes through Kafka, the mailer mails a link, the link sets the password (#10)', async () => {
    const email = 'stack.joiner@example.com';
    const mailsBefore = smtp.messagesTo(email).length;
    const requested = await http('POST', '/v1/auth/password-reset', { email });
    expect(requested.status).toBe(202);

    await smtp.waitFor(() => smtp.messagesTo(email).length > mailsBefore, 20_000, 'the password-reset mail');
    const mail = await smtp.messagesTo(email)[mailsBefore]!.parsed();
    const link = /\/password-reset\?token=([^\s"'<>&]+)/.exec(mail.text ?? '');
    expect(link).not.toBeNull();
    const secret = decodeURIComponent(link![1]!);

    expect((await http('GET', `/password-reset?token=${encodeURIComponent(secret)}`)).status).toBe(200);
    expect((await http('POST', '/v1/auth/password-reset/confirm', { token: secret, password: 'a brand new stack passphrase' })).status).toBe(204);
    expect((await http('POST', '/v1/auth/signin', { username: 'stack.joiner', password: 'stack joiner passphrase' })).status).toBe(401);
    expect((await http('POST', '/v1/auth/signin', { username: 'stack.joiner', password: 'a brand new stack passphrase' })).status).toBe(200);
    expect((await http('POST', '/v1/auth/password-reset/confirm', { token: secret, password: 'yet another stack passphrase' })).status).toBe(410);
  });

  it('counts the mail sent on the mailer\'s own /metrics, and the invitation on the api\'s', async () => {
    const ready = mailer.output.join('').match(/"metrics":"(http:[^"]+)"/);
    expect(ready).not.toBeNull();
    const mailerMetrics = await (await fetch(ready![1])).text();
    expect(Number(/^access_control_mails_sent_total\{[^}]*\} (\d+)/m.exec(mailerMetrics)?.[1])).toBeGreaterThanOrEqual(1);
    expect(mailerMetrics).toMatch(/^access_control_mailer_consumer_lag_messages\{[^}]*partition="\d+"[^}]*\} 0$/m);
    expect(mailerMetrics).toMatch(/^process_resident_memory_bytes\{process="mailer"\}/m);
    const apiReady = api.output.join('').match(/"metrics":"(http:[^"]+)"/);
    expect(apiReady).not.toBeNull();
    expect((await http('GET', '/metrics')).status).toBe(404); // the public listener has no /metrics
    const apiMetrics = await (await fetch(apiReady![1])).text();
    expect(Number(/^access_control_invitations_created_total\{[^}]*\} (\d+)/m.exec(apiMetrics)?.[1])).toBeGreaterThanOrEqual(1);
    expect(Number(/^access_control_events_published_total\{[^}]*\} (\d+)/m.exec(apiMetrics)?.[1])).toBeGreaterThanOrEqual(1);
  });

  it('puts valid, secret-free CloudEvents on the topic, keyed by user, read by an independent consumer', async () => {
    const consumer = new Kafka({ clientId: 'independent-reader', brokers: brokers.split(','), logLevel: logLevel.NOTHING }).consumer({
      groupId: `reader-${randomUUID()}`,
    });
    const seen: { key: string; headers: Record<string, string>; value: Record<string, unknown> }[] = [];
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        const headers = Object.fromEntries(Object.entries(message.headers ?? {}).map(([k, v]) => [k, String(v)]));
        seen.push({ key: String(message.key), headers, value: JSON.parse(String(message.value)) });
      },
    });
    const deadline = Date.now() + 20_000;
    // Up to the joiner's last event, its PasswordResetRequested (the bootstrap admin's UserJoined is on the topic too, first).
    const joinerJoined = () => seen.some((e) => e.value.type === 'PasswordResetRequested' && (e.value.data as { email?: string }).email === 'stack.joiner@example.com');
    while (!joinerJoined() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    await consumer.disconnect();

    const ajv = addFormats(new Ajv2020({ allErrors: true, strict: false }));
    const joiner = seen.filter((e) => (e.value.data as { email?: string }).email === 'stack.joiner@example.com');
    expect(joiner.map((e) => e.value.type)).toEqual(['UserInvited', 'UserJoined', 'PasswordResetRequested']); // the reset test above asked for one
    // One validator per event type: two events of a type (the admin's UserJoined and the joiner's) share it.
    const validators = new Map<string, ReturnType<typeof ajv.compile>>();
    const validatorOf = (type: string) => {
      if (!validators.has(type)) validators.set(type, ajv.compile(JSON.parse(readFileSync(path.join(ROOT, 'docs/events', `${type}.schema.json`), 'utf8'))));
      return validators.get(type)!;
    };
    for (const event of seen) {
      const validate = validatorOf(String(event.value.type));
      const valid = validate(event.value);
      expect({ type: event.value.type, errors: valid ? null : validate.errors }).toEqual({ type: event.value.type, errors: null });
      expect(event.key).toBe(event.value.subject);
      expect(event.headers.ce_id).toBe(event.value.id);
      expect(event.headers.ce_type).toBe(event.value.type);
      // The event's own type name (PasswordResetRequested) is no secret: what it carries is checked.
      expect(JSON.stringify(event.value).replaceAll(String(event.value.type), '')).not.toMatch(/password|argon2|token|passphrase/i);
    }
  });

  const outageTest = localKafkaUnavailable() ? it.skip : it;
  outageTest('answers every invite while Kafka is down, and mails each invitee exactly once after it returns', async () => {
    const token = await adminToken();
    await ownBroker!.stop();
    const emails = Array.from({ length: 15 }, (_, i) => `outage${i}@example.com`);
    const statuses = await Promise.all(emails.map((email) => http('POST', '/v1/users/invite', { email }, token).then((r) => r.status)));
    expect(statuses).toEqual(emails.map(() => 201));

    const [{ pending }] = await (await import('mysql2/promise'))
      .createConnection(db.url.replace(/^mariadb:/, 'mysql:'))
      .then(async (connection) => {
        const [rows] = await connection.query('SELECT COUNT(*) AS pending FROM outbox_events WHERE published_at IS NULL');
        await connection.end();
        return rows as { pending: number }[];
      });
    expect(Number(pending)).toBeGreaterThanOrEqual(emails.length);

    await ownBroker!.restart();
    await smtp.waitFor((messages) => emails.every((e) => messages.some((m) => m.envelopeTo.includes(e))), 90_000, 'a mail to every invitee');
    // Every event on the topic handled and committed (a redelivered one too), then count: a duplicate would be in.
    await caughtUp(env.MAILER_GROUP_ID!, 60_000);
    expect(emails.map((e) => smtp.messagesTo(e).length)).toEqual(emails.map(() => 1));
  });

  /** Resolves once `groupId` has committed every partition of the topic up to its end: it has handled all that is there. */
  async function caughtUp(groupId: string, timeoutMs: number): Promise<void> {
    const admin = new Kafka({ clientId: 'caught-up', brokers: brokers.split(','), logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const ends = await admin.fetchTopicOffsets(topic);
        const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
        const behind = ends.filter((end) => {
          const at = Number(committed?.partitions.find((p) => p.partition === end.partition)?.offset ?? -1);
          return Number(end.high) > 0 && at < Number(end.high);
        });
        if (behind.length === 0) return;
        if (Date.now() > deadline) throw new Error(`group ${groupId} still behind on partitions ${behind.map((b) => b.partition).join(', ')}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      await admin.disconnect();
    }
  }

  it('sends no new mail when a second mailer replays the topic from the beginning', async () => {
    const before = smtp.messages.length;
    const replayGroup = `replay-${randomUUID()}`;
    const replay = await startProcess(MAILER, { ...env, MAILER_GROUP_ID: replayGroup }, /mailer ready/);
    // The whole topic read and committed by the replaying group.
    await caughtUp(replayGroup, 60_000);
    expect(await stopProcess(replay)).toBe(0);
    expect(smtp.messages.length).toBe(before);
    expect(replay.output.join('')).toMatch(/duplicate|not-pending/);
  });
});
