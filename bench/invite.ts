/**
 * `npm run bench:invite`: the `invite` row of `npm run bench` on its own (issue #26's writers): POST /v1/users/invite
 * with the outbox relay publishing to Kafka, against the bare route's one INSERT in a transaction, closed loop, the
 * ratio the median of the rounds'. Also the same invites with 1 connection (no concurrency: what one invite costs),
 * so the two together say whether concurrent invites wait for each other.
 *
 * BENCH_INVITE_USERS (default 10 000) users are seeded first; BENCH_ROUNDS (3), BENCH_SECONDS (4).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { provideDatabaseServer } from '../test/support/database-server';
import { provideKafka } from '../test/support/kafka';
import { createTestDatabase } from '../test/support/test-database';
import { closeAgent, closedLoop, type LoadSpec, signInToken } from './load';
import { pair, throughputRatio } from './pairs';
import { log, ROOT, startTarget } from './processes';
import { seedUsers } from './seed';
import { BENCH_ADMIN } from './standalone';

const ADMIN = BENCH_ADMIN;

async function main(): Promise<void> {
  const users = Number(process.env.BENCH_INVITE_USERS ?? 10_000);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const seconds = Number(process.env.BENCH_SECONDS ?? 4);
  const cleanups: (() => Promise<unknown>)[] = [];
  try {
    if (!process.env.TEST_DATABASE_SERVER_URL) {
      const server = await provideDatabaseServer(log);
      process.env.TEST_DATABASE_SERVER_URL = server.url;
      cleanups.push(() => server.stop());
    }
    const kafka = await provideKafka({ log, local: { projectRoot: ROOT } });
    cleanups.push(() => kafka.stop());
    const db = await createTestDatabase('ac_bench_invite');
    cleanups.push(() => db.drop());
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ac-bench-'));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const suffix = Date.now().toString(36);
    const common = {
      DATA_DIR: dataDir,
      DATABASE_URL: db.url,
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_PASSWORD: ADMIN.password,
      ADMIN_EMAIL: ADMIN.email,
      BENCH_ADMIN_USERNAME: ADMIN.username,
      JWT_ISSUER: 'http://bench.local',
      ADDRESS_RATE_LIMIT: '0',
      INVITE_RATE_LIMIT: '0',
    };
    const api = await startTarget('api', 'api', { ...common, KAFKA_BROKERS: kafka.brokers, KAFKA_TOPIC: `bench-invite-${suffix}` });
    cleanups.push(() => api.stop());
    await seedUsers(db.url, users, (done) => log(`seeding: ${done}/${users}`));
    const bare = await startTarget('bare', 'bare', common);
    cleanups.push(() => bare.stop());
    const token = await signInToken(api.url, ADMIN);

    let invited = 0;
    const invite: LoadSpec = { method: 'POST', path: '/v1/users/invite', token, body: () => JSON.stringify({ email: `inv-${suffix}-${invited++}@bench.test` }) };
    const insert: LoadSpec = { method: 'POST', path: '/insert', body: () => '{}' };
    for (const connections of [10, 1]) {
      const result = await pair(`invite vs insert, ${connections} connection(s)`, rounds, () => closedLoop(api.url, invite, connections, seconds), () => closedLoop(bare.url, insert, connections, seconds), throughputRatio);
      const rps = result.figure.map((m) => m.rps.toFixed(0)).join(', ');
      const base = result.baseline.map((m) => m.rps.toFixed(0)).join(', ');
      const sorted = [...result.ratios].sort((a, b) => a - b);
      log(`invite, ${connections} connection(s): ${rps} req/s against ${base}; ratio ${(sorted[Math.floor(sorted.length / 2)]! * 100).toFixed(0)} % (rounds ${result.ratios.map((r) => r.toFixed(2)).join(', ')})`);
    }
  } finally {
    await closeAgent();
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
