/**
 * The capacity section of `npm run bench`: what one operation costs, in CPU seconds of the process
 * that does it (its own `process_cpu_seconds_total`, read from its GET /metrics before and after a run
 * of known count), in CPU seconds of the database server (from /proc, when it runs on this machine),
 * in server-wide statements and row writes, and in memory; plus the bytes per row of the tables that
 * grow, and how fast one mailer with the default settings drains mails when the SMTP server takes a
 * while to accept each. docs/SCALING.md sizes a deployment from these figures.
 *
 * Everything runs against one API process on the database seeded with the most users, with the
 * per-address and per-inviter limits counting (as deployed) but set too high to refuse anything.
 */
import { SIGN_IN_USERS, signInBody } from './seed';
import os from 'node:os';
import { logLevel } from 'kafkajs';
import { Kafka } from '../src/infrastructure/messaging/kafka-client';
import type { Connection } from 'mysql2/promise';
import type { SmtpTestServer } from '../test/support/smtp-test-server';
import { fixedCount, type LoadSpec, signInToken, sleep } from './load';
import { connect, databaseServerProcess, globalStatus, processCpuSeconds, residentBytes, scrape, serverSettings, type StatusCounters, type TableSize, tableSizes } from './probes';
import { log, startMailer, startTarget } from './processes';
import { refreshChains } from './refresh-chains';

/** The default of KAFKA_TOPIC_PARTITIONS (the migrate step creates the topics with it). */
const TOPIC_PARTITIONS = 6;
/** The mailer's defaults (MAILER_CONCURRENCY, MAILER_IN_FLIGHT) and nodemailer's pool (src/infrastructure/mail/nodemailer-mailer.ts). */
const MAILER_DEFAULTS = { concurrency: 2, inFlight: 8, smtpConnections: 5 };

export interface CapacityOperation {
  id: 'sign-in' | 'refresh' | 'users-list' | 'invite' | 'mail';
  operation: string;
  process: 'api' | 'mailer';
  connections: number | null;
  count: number;
  errors: number;
  wallSeconds: number;
  cpuSeconds: number;
  cpuMsPerOp: number;
  /** Operations per second of one fully busy core of this process: count / cpuSeconds. */
  opsPerCoreSecond: number;
  /** What this one process achieved meanwhile (on 2 shared cores: not a capacity). */
  achievedPerSecond: number;
  dbCpuMsPerOp: number | null;
  /** Server-wide, per operation: statements (Questions), row writes (Handler_write + Handler_update + Handler_delete), InnoDB fsyncs (Innodb_data_fsyncs). */
  dbStatementsPerOp: number | null;
  dbRowsWrittenPerOp: number | null;
  dbFsyncsPerOp: number | null;
  peakRssMB: number;
}

export interface Capacity {
  command: string;
  /** 1-minute load average of the machine at the start and the end of the section: how busy the shared cores were. */
  loadAverage: { start: number; end: number };
  users: number;
  databaseCpu: { measured: boolean; detail: string };
  /** The server's version and the settings a write's cost depends on. */
  databaseServer: Record<string, string | number>;
  operations: CapacityOperation[];
  memory: { apiRssAtRestMB: number; apiRssAfterLoadMB: number; apiPeakRssMB: number; mailerRssAtRestMB: number; mailerPeakRssMB: number };
  smtpLatency: { latencyMs: number; mails: number; seconds: number; mailsPerSecond: number; peakSmtpInFlight: number; topicPartitions: number; mailerConcurrency: number; mailerInFlight: number; smtpConnections: number };
  tables: TableSize[];
  /**
   * The user total's recount (`src/infrastructure/persistence/typeorm/user-total.ts`: each API process
   * that serves user lists runs it in the background when its count is older than 5 s), at the seeded
   * size: the median of three runs of TypeORM's `count()` SQL.
   */
  userTotalRecount: { users: number; sql: string; seconds: number; dbCpuSeconds: number | null };
}

export interface CapacityInputs {
  smoke: boolean;
  databaseUrl: string;
  users: number;
  kafkaBrokers: string;
  smtp: SmtpTestServer;
  /** The environment every api of the run gets (DATA_DIR, admin, issuer). */
  env: Record<string, string>;
  admin: { username: string; password: string };
  signInConcurrency: number;
  suffix: string;
  cleanups: (() => Promise<unknown>)[];
}

const MB = 2 ** 20;
const round = (value: number, digits = 3) => Number(value.toFixed(digits));

export async function measureCapacity(inputs: CapacityInputs): Promise<Capacity> {
  const { smoke, smtp, suffix, cleanups } = inputs;
  const loadAtStart = os.loadavg()[0]!;
  const sizes = smoke
    ? { signIn: [4, 20], refresh: [20, 100], users: [50, 300], invite: [10, 50], smtpLatencyMs: 20, latencyMails: 20 }
    : { signIn: [40, 800], refresh: [500, 5000], users: [3000, 30_000], invite: [300, 5000], smtpLatencyMs: 100, latencyMails: 400 };
  const topic = `bench-capacity-${suffix}`;
  const admin = new Kafka({ clientId: 'bench', brokers: inputs.kafkaBrokers.split(','), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: TOPIC_PARTITIONS }], waitForLeaders: true });
  await admin.disconnect();

  const env = {
    ...inputs.env,
    DATABASE_URL: inputs.databaseUrl,
    MIGRATE_ON_START: 'false',
    KAFKA_BROKERS: inputs.kafkaBrokers,
    KAFKA_TOPIC: topic,
    SMTP_URL: smtp.url,
    PUBLIC_URL: 'http://bench.local',
    MAILER_GROUP_ID: `bench-capacity-mailer-${suffix}`,
    // Counting as deployed (one upsert per sign-in and per invite), never refusing: one load generator is one address and one inviter.
    ADDRESS_RATE_LIMIT: '1000000',
    INVITE_RATE_LIMIT: '1000000',
  };
  const api = await startTarget('api@capacity', 'api', env);
  cleanups.push(() => api.stop());
  const apiPid = api.child.pid!;
  const server = await databaseServerProcess(inputs.databaseUrl);
  log(server.pid === null ? `capacity: database CPU not measured: ${server.why}` : `capacity: database server ${server.how}`);
  const dbCpu = () => (server.pid === null ? NaN : processCpuSeconds(server.pid));
  const status: Connection = await connect(inputs.databaseUrl);
  cleanups.push(() => status.end());

  const token = await signInToken(api.url, inputs.admin);
  await sleep(2000);
  const apiRssAtRest = residentBytes(apiPid).rss;

  /** One process's CPU, the server's CPU and counters around `work`, which answers how many operations it did. */
  const around = async (id: CapacityOperation['id'], operation: string, processName: 'api' | 'mailer', metricsUrl: string, pid: number, connections: number | null, work: () => Promise<{ ok: number; errors: number; ownStatements: number }>) => {
    const m0 = await scrape(metricsUrl);
    const s0 = await globalStatus(status);
    const d0 = dbCpu();
    let peak = residentBytes(pid).rss;
    const sampler = setInterval(() => {
      try {
        peak = Math.max(peak, residentBytes(pid).rss);
      } catch {
        /* the process is gone: the run fails on its own */
      }
    }, 100);
    const started = performance.now();
    const done = await work().finally(() => clearInterval(sampler));
    const wallSeconds = (performance.now() - started) / 1000;
    const d1 = dbCpu();
    const s1 = await globalStatus(status);
    const m1 = await scrape(metricsUrl);
    const count = processName === 'mailer' ? m1.mailsSent - (Number.isFinite(m0.mailsSent) ? m0.mailsSent : 0) : done.ok;
    const cpuSeconds = m1.cpuSeconds - m0.cpuSeconds;
    const perOp = (delta: number) => (Number.isFinite(delta) && count > 0 ? round(delta / count, 2) : null);
    const counter = (name: keyof StatusCounters) => s1[name] - s0[name];
    const result: CapacityOperation = {
      id,
      operation,
      process: processName,
      connections,
      count,
      errors: done.errors,
      wallSeconds: round(wallSeconds, 2),
      cpuSeconds: round(cpuSeconds),
      cpuMsPerOp: round((cpuSeconds * 1000) / count),
      opsPerCoreSecond: round(count / cpuSeconds, 1),
      achievedPerSecond: round(count / wallSeconds, 1),
      dbCpuMsPerOp: server.pid === null ? null : round(((d1 - d0) * 1000) / count),
      // Our own SHOW GLOBAL STATUS after the run and the polls of `work` are statements too.
      dbStatementsPerOp: perOp(counter('Questions') - 1 - done.ownStatements),
      dbRowsWrittenPerOp: perOp(counter('Handler_write') + counter('Handler_update') + counter('Handler_delete')),
      dbFsyncsPerOp: perOp(counter('Innodb_data_fsyncs')),
      peakRssMB: round(peak / MB, 1),
    };
    log(`capacity ${id}: ${count} in ${result.wallSeconds} s, ${result.cpuMsPerOp} ms CPU each (${result.opsPerCoreSecond}/core-s), database ${result.dbCpuMsPerOp ?? '—'} ms, ${result.dbStatementsPerOp ?? '—'} statements`);
    return result;
  };
  /** A warm-up, then a measured run of `count` requests; answers the measurement and how many of both succeeded. */
  const apiRun = async (id: CapacityOperation['id'], operation: string, spec: LoadSpec, connections: number, [warm, count]: number[], after?: () => Promise<number>) => {
    const warmUp = await fixedCount(api.url, spec, connections, warm!);
    await after?.();
    // What the run needs minted (refresh tokens: sign-ins) is made here, outside the measured CPU.
    await spec.prepare?.(connections);
    const measured = await around(id, operation, 'api', `${api.metricsUrl}/metrics`, apiPid, connections, async () => {
      const run = await fixedCount(api.url, spec, connections, count!);
      return { ok: run.ok, errors: run.errors, ownStatements: after ? await after() : 0 };
    });
    return { measured, succeeded: warmUp.ok + measured.count };
  };
  /** Waits until the relay has published every event (its CPU belongs to the invite); answers the polls it made. */
  const outboxDrained = async () => {
    let polls = 0;
    const deadline = Date.now() + 60_000;
    for (;;) {
      polls++;
      const [[row]] = (await status.query('SELECT COUNT(*) AS n FROM outbox_events WHERE published_at IS NULL')) as unknown as [{ n: number }[]];
      if (Number(row!.n) === 0) return polls;
      if (Date.now() > deadline) throw new Error(`the relay left ${row!.n} events unpublished after 60 s`);
      await sleep(50);
    }
  };

  const operations: CapacityOperation[] = [];
  const signInSpec: LoadSpec = { method: 'POST', path: '/v1/auth/signin', body: signInBody(inputs.admin.password, Math.min(SIGN_IN_USERS, inputs.users)) };
  operations.push((await apiRun('sign-in', `POST /v1/auth/signin, ${inputs.signInConcurrency} connections`, signInSpec, inputs.signInConcurrency, sizes.signIn)).measured);
  const refresh = refreshChains(api.url, inputs.admin);
  operations.push((await apiRun('refresh', 'POST /v1/auth/refresh, 10 connections, each request the next token of a chain (bench/refresh-chains.ts)', refresh.spec, 10, sizes.refresh)).measured);
  operations.push((await apiRun('users-list', 'GET /v1/users page 1, authenticated, 10 connections', { path: '/v1/users', token }, 10, sizes.users)).measured);
  let invited = 0;
  const inviteSpec: LoadSpec = {
    method: 'POST',
    path: '/v1/users/invite',
    token,
    body: () => JSON.stringify({ email: `cap-${suffix}-${invited}@bench.test`, name: `Capacity User ${invited++}` }),
  };
  const invite = await apiRun('invite', 'POST /v1/users/invite and the relay publishing its event, 10 connections', inviteSpec, 10, sizes.invite, outboxDrained);
  operations.push(invite.measured);
  const invites = invite.succeeded; // warm-up and measured: every one is a mail to come
  await sleep(2000);
  const apiRssAfterLoad = residentBytes(apiPid);

  // The mailer starts after the invites, so it finds a backlog; measured from the moment its consumer
  // joined the group (its start, connections and join are left out), by its own count of mails sent.
  const mailsBefore = smtp.messages.length;
  const mailer = await startMailer(env);
  cleanups.push(() => mailer.stop());
  await mailer.ready;
  const mailTimeout = smoke ? 60_000 : 180_000;
  const waitForMails = async (total: number, what: string) => {
    const deadline = Date.now() + mailTimeout;
    while (smtp.messages.length - mailsBefore < total) {
      if (Date.now() > deadline) throw new Error(`${what}: ${smtp.messages.length - mailsBefore}/${total} mails after ${mailTimeout / 1000} s`);
      await sleep(50);
    }
  };
  operations.push(
    await around('mail', `an invitation mailed by one mailer (MAILER_CONCURRENCY ${MAILER_DEFAULTS.concurrency}, MAILER_IN_FLIGHT ${MAILER_DEFAULTS.inFlight}, ${TOPIC_PARTITIONS} partitions), from its group join to the last mail`, 'mailer', mailer.metricsUrl, mailer.pid, null, async () => {
      await waitForMails(invites, 'mail drain');
      // The counter moves after the processed-event record that follows the SMTP answer.
      for (let tries = 0; tries < 50 && (await scrape(mailer.metricsUrl)).mailsSent < invites; tries++) await sleep(100);
      return { ok: invites, errors: 0, ownStatements: 0 };
    }),
  );
  await sleep(2000);
  const mailerRss = residentBytes(mailer.pid);

  // The same mailer when the SMTP server takes `smtpLatencyMs` to accept each mail.
  smtp.setLatency(sizes.smtpLatencyMs);
  smtp.resetPeak();
  const latencyFrom = smtp.messages.length;
  const latencyRun = await fixedCount(api.url, inviteSpec, 10, sizes.latencyMails);
  await waitForMails(invites + latencyRun.ok, 'SMTP latency drain');
  smtp.setLatency(0);
  const stamps = smtp.messages.slice(latencyFrom).map((m) => m.receivedAt.getTime());
  const spanSeconds = (Math.max(...stamps) - Math.min(...stamps)) / 1000;
  const smtpLatency = {
    latencyMs: sizes.smtpLatencyMs,
    mails: stamps.length,
    seconds: round(spanSeconds, 2),
    mailsPerSecond: round((stamps.length - 1) / spanSeconds, 1),
    peakSmtpInFlight: smtp.peakDataInFlight,
    topicPartitions: TOPIC_PARTITIONS,
    mailerConcurrency: MAILER_DEFAULTS.concurrency,
    mailerInFlight: MAILER_DEFAULTS.inFlight,
    smtpConnections: MAILER_DEFAULTS.smtpConnections,
  };
  log(`capacity: SMTP at ${smtpLatency.latencyMs} ms: ${smtpLatency.mailsPerSecond} mails/s, at most ${smtpLatency.peakSmtpInFlight} in flight`);
  await outboxDrained();
  await Promise.all([mailer.stop(), api.stop()]);

  const tables = await tableSizes(status, ['users', 'outbox_events', 'invitations', 'processed_events']);
  const recountSql = 'SELECT COUNT(1) AS cnt FROM users';
  const recounts: { seconds: number; db: number }[] = [];
  let counted = 0;
  for (let i = 0; i < 3; i++) {
    const d0 = dbCpu();
    const started = performance.now();
    const [[row]] = (await status.query(recountSql)) as unknown as [{ cnt: number }[]];
    recounts.push({ seconds: (performance.now() - started) / 1000, db: dbCpu() - d0 });
    counted = Number(row!.cnt);
  }
  const middle = (values: number[]) => [...values].sort((a, b) => a - b)[1]!;
  return {
    command: 'npm run bench',
    loadAverage: { start: round(loadAtStart, 2), end: round(os.loadavg()[0]!, 2) },
    users: inputs.users,
    databaseServer: await serverSettings(status),
    databaseCpu: server.pid === null ? { measured: false, detail: `not measured: ${server.why}` } : { measured: true, detail: `utime + stime of the server process, ${server.how}` },
    operations,
    memory: {
      apiRssAtRestMB: round(apiRssAtRest / MB, 1),
      apiRssAfterLoadMB: round(apiRssAfterLoad.rss / MB, 1),
      apiPeakRssMB: round(apiRssAfterLoad.peak / MB, 1),
      mailerRssAtRestMB: round(mailerRss.rss / MB, 1),
      mailerPeakRssMB: round(mailerRss.peak / MB, 1),
    },
    smtpLatency,
    tables,
    userTotalRecount: {
      users: counted,
      sql: recountSql,
      seconds: round(middle(recounts.map((r) => r.seconds))),
      dbCpuSeconds: server.pid === null ? null : round(middle(recounts.map((r) => r.db))),
    },
  };
}
