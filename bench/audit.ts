/**
 * The audit trail's rows (#23), measured on their own: `npm run build && tsc -p tsconfig.bench.json && node dist-bench/bench/audit.js`.
 *
 * - Sign-in with the trail on against the same build with it off (AUDIT_TRAIL=false), two api processes on one
 *   MariaDB database, interleaved runs, the median of the per-round ratios. Target ≥ 97 %: a sign-in writes one
 *   entry (and its outbox row) beside an argon2id verify.
 * - The query at BENCH_AUDIT_ENTRIES entries (1 M; BENCH_SMOKE=1: 20 000): a filtered first page (one target, one
 *   action group, each drawn at random per request) and a cursor drawn from 50 at random depths in the deeper half
 *   of the trail, against the unfiltered first page. Target within 2× (≥ 50 %).
 *   Entries are drawn as a real trail's are: 10 000 targets, 1 000 actors, every action, spread over a year.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AuditActions } from '../src/domain/audit/audit-entry';
import { connectTo, createTestDatabase } from '../test/support/test-database';
import { closeAgent, closedLoop, type LoadSpec, type Measure, median, signInToken } from './load';
import { log, startTarget } from './processes';
import { orderedUuidV7 } from './seed';

const SMOKE = process.env.BENCH_SMOKE === '1';
const ENTRIES = Number(process.env.BENCH_AUDIT_ENTRIES ?? (SMOKE ? 20_000 : 1_000_000));
const ROUNDS = SMOKE ? 2 : 3;
const SECONDS = SMOKE ? 1 : 4;
const CONNECTIONS = 8;
const TARGETS = 10_000;
const ACTORS = 1_000;
const ACTIONS = Object.values(AuditActions);
/** The action groups (`user`, `auth`, …), one drawn per request of the group row. */
const GROUPS = [...new Set(ACTIONS.map((action) => action.split('.')[0]!))];
const DEEP_CURSORS = 50;
const BATCH = 5_000;

async function seedAuditEntries(databaseUrl: string, count: number): Promise<void> {
  const connection = await connectTo(databaseUrl);
  try {
    const start = Date.now() - 365 * 86_400_000;
    const step = Math.max(1, Math.floor((365 * 86_400_000) / count));
    for (let from = 0; from < count; from += BATCH) {
      const rows: unknown[][] = [];
      for (let i = from; i < Math.min(count, from + BATCH); i++) {
        const action = ACTIONS[i % ACTIONS.length]!;
        const target = `01a1fc99-0000-7000-8000-${(i % TARGETS).toString(16).padStart(12, '0')}`;
        const actor = `01a1fc99-0000-7000-9000-${(i % ACTORS).toString(16).padStart(12, '0')}`;
        rows.push([orderedUuidV7(start, i), start + i * step, action, action.split('.')[0], i % 7 === 0 ? 'failure' : 'success', null, 'user', actor, `actor ${i % ACTORS}`, 'user', target, `user ${i % TARGETS}`, '198.51.100.7', 'bench', `bench-${i}`, null]);
      }
      await connection.query(
        'INSERT INTO audit_events (id, occurred_at, action, action_group, outcome, code, actor_type, actor_id, actor_name, target_type, target_id, target_snapshot, source_address, user_agent, request_id, changes) VALUES ?',
        [rows],
      );
    }
  } finally {
    await connection.end();
  }
}

async function interleaved(label: string, figure: () => Promise<Measure>, baseline: () => Promise<Measure>, min: number): Promise<string> {
  const ratios: number[] = [];
  const f: number[] = [];
  const b: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const [x, y] = round % 2 === 0 ? [await figure(), await baseline()] : (([q, p]) => [p, q])([await baseline(), await figure()]);
    f.push(x!.rps);
    b.push(y!.rps);
    ratios.push(y!.rps > 0 ? x!.rps / y!.rps : 0);
    log(`${label} round ${round + 1}: ${x!.rps.toFixed(0)}/s (p99 ${x!.p99.toFixed(1)} ms, errors ${x!.errors}); baseline ${y!.rps.toFixed(0)}/s (errors ${y!.errors}); ratio ${ratios.at(-1)!.toFixed(3)}`);
  }
  const ratio = median(ratios);
  return `${label}: ${median(f).toFixed(0)} against ${median(b).toFixed(0)} req/s, ratio ${ratio.toFixed(3)} (median of ${ROUNDS}) ${ratio >= min ? 'met' : 'MISSED'} (target ≥ ${min})`;
}

export async function runAuditRows(): Promise<string[]> {
  const admin = { username: 'bench.admin', password: 'bench-admin-password-1', email: 'bench.admin@example.com' };
  process.env.TEST_DATABASE_SERVER_URL ??= 'mariadb://root@127.0.0.1:3306';
  const database = await createTestDatabase('ac_bench_audit');
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ac-bench-audit-'));
  const env = {
    DATA_DIR: dataDir, ADMIN_USERNAME: admin.username, ADMIN_PASSWORD: admin.password, ADMIN_EMAIL: admin.email,
    BENCH_ADMIN_USERNAME: admin.username, DATABASE_URL: database.url, RELAY_ENABLED: 'false', ADDRESS_RATE_LIMIT: '0',
  };
  const on = await startTarget('api (trail on)', 'api', env);
  const off = await startTarget('api (trail off)', 'api', { ...env, AUDIT_TRAIL: 'false', MIGRATE_ON_START: 'false' });
  try {
    const summary: string[] = [];
    const signIn: LoadSpec = { method: 'POST', path: '/v1/auth/signin', body: () => JSON.stringify({ username: admin.username, password: admin.password }) };
    summary.push(await interleaved('sign-in, trail on vs off', () => closedLoop(on.url, signIn, CONNECTIONS, SECONDS), () => closedLoop(off.url, signIn, CONNECTIONS, SECONDS), 0.97));

    log(`seeding ${ENTRIES} audit entries`);
    await seedAuditEntries(database.url, ENTRIES);
    const token = await signInToken(on.url, admin);
    // Cursors at depths drawn uniformly over the deeper half of the trail, one picked per request: no single warm spot.
    const deep = await connectTo(database.url);
    const cursors: string[] = [];
    for (let i = 0; i < DEEP_CURSORS; i++) {
      const offset = Math.floor(ENTRIES * (0.5 + Math.random() * 0.49));
      const [[position]] = (await deep.query(`SELECT occurred_at, id FROM audit_events ORDER BY occurred_at DESC, id DESC LIMIT 1 OFFSET ${offset}`)) as unknown as [{ occurred_at: number | string; id: string }[]];
      cursors.push(Buffer.from(`${Number(position!.occurred_at)}.${position!.id}`, 'utf8').toString('base64url'));
    }
    await deep.end();
    const pick = <T>(values: readonly T[]): T => values[Math.floor(Math.random() * values.length)]!;
    const page = (query: () => string): LoadSpec => ({ path: '/v1/audit-events', token, requestPath: () => `/v1/audit-events?page_size=50${query()}` });
    const target = () => `&target=01a1fc99-0000-7000-8000-${Math.floor(Math.random() * TARGETS).toString(16).padStart(12, '0')}`;
    const unfiltered = () => closedLoop(on.url, page(() => ''), CONNECTIONS, SECONDS);
    summary.push(await interleaved(`first page of one target at ${ENTRIES} entries vs unfiltered`, () => closedLoop(on.url, page(target), CONNECTIONS, SECONDS), unfiltered, 0.5));
    summary.push(await interleaved(`first page of an action group at ${ENTRIES} entries vs unfiltered`, () => closedLoop(on.url, page(() => `&action=${pick(GROUPS)}`), CONNECTIONS, SECONDS), unfiltered, 0.5));
    summary.push(await interleaved(`a cursor 50–99 % deep at ${ENTRIES} entries vs unfiltered first page`, () => closedLoop(on.url, page(() => `&cursor=${pick(cursors)}`), CONNECTIONS, SECONDS), unfiltered, 0.5));
    for (const line of summary) log(line);
    return summary;
  } finally {
    await Promise.all([on.stop(), off.stop()]);
    closeAgent();
    rmSync(dataDir, { recursive: true, force: true });
    await database.drop();
  }
}

if (require.main === module) {
  runAuditRows().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`[bench] failed: ${error instanceof Error ? error.stack : String(error)}\n`);
      process.exit(1);
    },
  );
}
