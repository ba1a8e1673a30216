/**
 * The mailer worker stopped, killed and started early (mail-worker-harness.ts: a real broker, SMTP server and
 * database): every invitation still gets its mail, a duplicate only as documented, and no topic is auto-created.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { KafkaMailWorker } from '../../../src/infrastructure/messaging/consumer/kafka-mail-worker';
import { buildIssueInvitation } from './fixtures/issue-invitation.fixture';
import { brokers, mailWorkerHarness, sha256 } from './mail-worker-harness';

jest.setTimeout(60_000);

describe('KafkaMailWorker stopped, killed and started early (Kafka + SMTP + database)', () => {
  const h = mailWorkerHarness();
  const { workers, children, logLines, logger, newTopic, invite, message, produce, startWorker, waitUntilCommitted, storedTokenHash, processedCount, tokensMailedTo, expectOneValidMailEach } = h;

  it('stopped mid-burst and started again: every invitation gets exactly one mail', async () => {
    const topic = await newTopic(3);
    const invitees = await invite(10, 'restart');
    h.smtp.setLatency(120);
    const groupId = `mailer-test-${randomUUID()}`;
    // One mail at a time per partition, so that stopping leaves some of the burst for the successor.
    const first = await startWorker(topic, { groupId, mailsInFlightPerPartition: 1 });
    await produce(topic, invitees.map((i) => message(i.event)));

    const mailedCount = () => invitees.filter((i) => h.smtp.messagesTo(i.email).length > 0).length;
    await h.smtp.waitFor(() => mailedCount() >= 3, 20_000, 'the burst to start');
    await first.stop();
    const atStop = mailedCount();
    expect(atStop).toBeLessThan(invitees.length); // really stopped mid-burst

    const second = await startWorker(topic, { groupId });
    await h.smtp.waitFor(() => mailedCount() === invitees.length, 30_000, 'every invitee mailed');
    await waitUntilCommitted(second.groupId, topic);

    await expectOneValidMailEach(invitees);
    expect(await processedCount(invitees.map((i) => i.event.id))).toBe(invitees.length);
  });

  it('its process killed mid-burst (SIGKILL) and a new one started: no invitation without a mail, at most the documented duplicate', async () => {
    const topic = await newTopic(3);
    const invitees = await invite(12, 'crash');
    h.smtp.setLatency(150);
    const groupId = `mailer-test-${randomUUID()}`;
    const concurrency = 2;
    const inFlight = 2;

    const fixtures = path.join(__dirname, 'fixtures');
    const child = spawn(process.execPath, ['--require', path.join(fixtures, 'register-ts.js'), path.join(fixtures, 'worker-process.fixture.ts')], {
      env: {
        ...process.env,
        FIXTURE_DB_KIND: h.db.config.kind,
        FIXTURE_DB_URL: h.db.url,
        FIXTURE_SMTP_URL: h.smtp.url,
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
    const mailedCount = () => invitees.filter((i) => h.smtp.messagesTo(i.email).length > 0).length;
    await h.smtp.waitFor(() => mailedCount() >= 4, 20_000, 'the burst to start');
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    const atKill = mailedCount();
    expect(atKill).toBeLessThan(invitees.length); // really killed mid-burst

    const successor = await startWorker(topic, { groupId, partitionsConsumedConcurrently: concurrency });
    await h.smtp.waitFor(() => mailedCount() === invitees.length, 40_000, 'every invitee mailed');
    await waitUntilCommitted(successor.groupId, topic, 40_000);

    // No invitation without a mail; a second mail only for what was in flight when the process died
    // (accepted by the mail server, not yet recorded): at most one per mail in flight.
    const counts = invitees.map((i) => h.smtp.messagesTo(i.email).length);
    expect(counts.every((n) => n === 1 || n === 2)).toBe(true);
    expect(counts.filter((n) => n === 2).length).toBeLessThanOrEqual(concurrency * inFlight);
    for (const { user, email } of invitees) {
      const tokens = await tokensMailedTo(email);
      // The last mail holds the live token; an earlier duplicate's token was replaced.
      expect(sha256(tokens[tokens.length - 1])).toBe(await storedTokenHash(user.id));
    }
    expect(await processedCount(invitees.map((i) => i.event.id))).toBe(invitees.length);
  });

  it('started before its topic exists, on a broker that would auto-create it: waits, not ready, creates nothing, and consumes once the topic is created', async () => {
    const topic = `mailer-test-${randomUUID()}`;
    const worker = new KafkaMailWorker({
      issueInvitation: buildIssueInvitation(h.dataSource, h.mailer),
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
    expect(await h.admin.listTopics()).not.toContain(topic);
    expect(started).toBe(false);

    await h.admin.createTopics({ topics: [{ topic, numPartitions: 2, replicationFactor: 1 }], waitForLeaders: true });
    await until(() => started, 'start() to resolve once the consumer has joined');
    expect(worker.status()).toMatchObject({ ready: true, state: 'consuming' });
    const [invitee] = await invite(1, 'late-topic');
    await produce(topic, [message(invitee!.event)]);
    await h.smtp.waitFor(() => h.smtp.messagesTo(invitee!.email).length === 1, 20_000, 'the invitation mail');
    await expectOneValidMailEach([invitee!]);
  });

  it('stopped while it waits for its topic: start() and stop() both return, and it says it is stopped', async () => {
    const worker = new KafkaMailWorker({
      issueInvitation: buildIssueInvitation(h.dataSource, h.mailer),
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
