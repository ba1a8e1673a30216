/**
 * The audit trail's rows (#23), in `npm run bench` (bench/run.ts, a table of their own) and on their own:
 * `npm run build && tsc -p tsconfig.bench.json && node dist-bench/bench/audit.js` (BENCH_AUDIT_ENTRIES=10000000
 * for the trail at 10 M entries).
 *
 * - Sign-in with the trail on against the same build with it off (AUDIT_TRAIL=false), two api processes on one
 *   MariaDB database, interleaved runs, the median of the per-round ratios. Target ≥ 97 %: a sign-in writes one
 *   entry beside an argon2id verify (its outbox row is the sealer's, off the request path). Each run's CPU and
 *   statements per sign-in are logged (bench/probes.ts, costOf).
 * - The query at BENCH_AUDIT_ENTRIES entries (1 M; BENCH_SMOKE=1: 20 000): a filtered first page (one target, one
 *   action group, each drawn at random per request) and a cursor drawn from 50 at random depths in the deeper half
 *   of the trail, against the unfiltered first page. Target within 2× (≥ 50 %).
 *   Entries are drawn as a real trail's are: 10 000 targets, 1 000 actors, every action, spread over a year.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AuditActions } from '../src/domain/audit/audit-entry';
import { type AuditRow, chainLink, ENTRY_COLUMNS } from '../src/infrastructure/persistence/typeorm/audit/audit-rows';
import { connectTo, createTestDatabase } from '../test/support/test-database';
import { closedLoop, type LoadSpec, type Measure, signInToken } from './load';
import { pair, rowOf } from './pairs';
import { costOf, databaseServerProcess, describeCost } from './probes';
import { log, startTarget, type Target } from './processes';
import { fmt, type Row } from './report';
import { orderedUuidV7, SIGN_IN_USERS, seedUsers, signInBody } from './seed';
import { BENCH_ADMIN, runStandalone } from './standalone';

const SMOKE = process.env.BENCH_SMOKE === '1';
const ENTRIES = Number(process.env.BENCH_AUDIT_ENTRIES ?? (SMOKE ? 20_000 : 1_000_000));
const TARGETS = 10_000;
const ACTORS = 1_000;
const ACTIONS = Object.values(AuditActions);
/** The action groups (`user`, `auth`, …), one drawn per request of the group row. */
const GROUPS = [...new Set(ACTIONS.map((action) => action.split('.')[0]!))];
const DEEP_CURSORS = 50;
const BATCH = 5_000;

/**
 * Writes `count` entries straight through mysql2 and answers the cursors of DEEP_CURSORS of them, drawn
 * uniformly over the deeper (older) half of the trail: a cursor is the entry's time and id (`time.id`, base64url).
 * The entries are written sealed, linked on the chain's head as the api's sealer links them (`chainLink`, the
 * chain row moved on at the end), as a trail whose entries were sealed as they came: left unsealed, a million
 * entries would keep the sealer working through its backlog during the runs, which no steady trail does.
 */
export async function seedAuditEntries(databaseUrl: string, count: number, progress: (done: number) => void): Promise<string[]> {
  const connection = await connectTo(databaseUrl);
  const deep = new Set<number>();
  while (deep.size < Math.min(DEEP_CURSORS, Math.floor(count / 2))) deep.add(Math.floor(Math.random() * (count / 2)));
  const cursors: string[] = [];
  try {
    // What the api wrote before (the sign-in rows' entries) is sealed first: the seeded entries go on after it.
    for (let waited = 0; ; waited += 200) {
      const [[pending]] = (await connection.query('SELECT COUNT(*) AS n FROM audit_events WHERE seq IS NULL')) as unknown as [{ n: number | string }[]];
      if (Number(pending!.n) === 0) break;
      if (waited > 120_000) throw new Error(`${String(pending!.n)} audit entries still unsealed after 2 minutes`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const [[chain]] = (await connection.query('SELECT last_seq, last_hash FROM audit_chain WHERE id = 1')) as unknown as [{ last_seq: number | string; last_hash: string }[]];
    let seq = Number(chain!.last_seq);
    let link = chain!.last_hash;
    const start = Date.now() - 365 * 86_400_000;
    const step = Math.max(1, Math.floor((365 * 86_400_000) / count));
    for (let from = 0; from < count; from += BATCH) {
      const rows: unknown[][] = [];
      for (let i = from; i < Math.min(count, from + BATCH); i++) {
        const action = ACTIONS[i % ACTIONS.length]!;
        const target = `01a1fc99-0000-7000-8000-${(i % TARGETS).toString(16).padStart(12, '0')}`;
        const actor = `01a1fc99-0000-7000-9000-${(i % ACTORS).toString(16).padStart(12, '0')}`;
        const id = orderedUuidV7(start, i);
        if (deep.has(i)) cursors.push(Buffer.from(`${start + i * step}.${id}`, 'utf8').toString('base64url'));
        const entry = [id, start + i * step, action, action.split('.')[0], i % 7 === 0 ? 'failure' : 'success', null, 'user', actor, `actor ${i % ACTORS}`, 'user', target, `user ${i % TARGETS}`, '198.51.100.7', 'bench', `bench-${i}`, null];
        seq += 1;
        link = chainLink(link, seq, Object.fromEntries(ENTRY_COLUMNS.map((column, k) => [column, entry[k]])) as AuditRow);
        rows.push([...entry, seq, link]);
      }
      await connection.query(`INSERT INTO audit_events (${ENTRY_COLUMNS.join(', ')}, seq, chain_hash) VALUES ?`, [rows]);
      if ((from / BATCH) % 100 === 99) progress(from + rows.length);
    }
    await connection.query('UPDATE audit_chain SET last_seq = ?, last_hash = ? WHERE id = 1', [seq, link]);
    return cursors;
  } finally {
    await connection.end();
  }
}

export interface AuditBenchSettings {
  rounds: number;
  seconds: number;
  /** Connections of the query rows. */
  connections: number;
  /** Concurrent sign-ins (npm run bench: the sign-in row's best concurrency). */
  signInConcurrency: number;
}

const STANDALONE: AuditBenchSettings = SMOKE ? { rounds: 2, seconds: 1, connections: 4, signInConcurrency: 2 } : { rounds: 3, seconds: 4, connections: 8, signInConcurrency: 8 };

/** The rows, on a database and two api processes of their own (every other target of the run stopped). */
export async function runAuditRows(settings: AuditBenchSettings = STANDALONE): Promise<Row[]> {
  const { rounds, seconds, connections } = settings;
  const admin = BENCH_ADMIN;
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
    const rows: Row[] = [];
    await seedUsers(database.url, SIGN_IN_USERS);
    const signIn: LoadSpec = { method: 'POST', path: '/v1/auth/signin', body: signInBody(admin.password) };
    const c = settings.signInConcurrency;
    // Each run's cost per sign-in in the log (bench/probes.ts, costOf): what the trail adds, steadier than the ratio.
    const [server, status] = [await databaseServerProcess(database.url), await connectTo(database.url)];
    const costed = async (api: Target, side: string): Promise<Measure> => {
      const { measure, cost } = await costOf({ api: api.child.pid!, database: server.pid }, status, () => closedLoop(api.url, signIn, c, seconds), (m) => m.rps * seconds);
      log(`  trail ${side}: ${describeCost(cost)}`);
      return measure;
    };
    const signIns = await pair('sign-in, trail on vs off', rounds, () => costed(on, 'on'), () => costed(off, 'off')).finally(() => status.end());
    rows.push(rowOf('audit-signin', `POST /v1/auth/signin with the audit trail on, closed loop, concurrency ${c}`, 'the same build with AUDIT_TRAIL=false, same database', signIns, 'req/s', '≥ 97 %', (r) => r >= 0.97));

    log(`seeding ${ENTRIES} audit entries`);
    const seeded = Date.now();
    const cursors = await seedAuditEntries(database.url, ENTRIES, (done) => log(`seeding audit entries: ${done}/${ENTRIES}`));
    log(`seeded ${ENTRIES} audit entries in ${((Date.now() - seeded) / 1000).toFixed(1)} s`);
    const token = await signInToken(on.url, admin);
    const pick = <T>(values: readonly T[]): T => values[Math.floor(Math.random() * values.length)]!;
    const page = (query: () => string): LoadSpec => ({ path: '/v1/audit-events', token, requestPath: () => `/v1/audit-events?page_size=50${query()}` });
    const target = () => `&target=01a1fc99-0000-7000-8000-${Math.floor(Math.random() * TARGETS).toString(16).padStart(12, '0')}`;
    const unfiltered = () => closedLoop(on.url, page(() => ''), connections, seconds);
    const baseline = `GET /v1/audit-events?page_size=50, the unfiltered first page, same trail`;
    const queryRow = async (id: string, scenario: string, query: () => string) =>
      rowOf(id, `GET /v1/audit-events?page_size=50 ${scenario} at ${ENTRIES} entries, closed loop, ${connections} connections`, baseline,
        await pair(id, rounds, () => closedLoop(on.url, page(query), connections, seconds), unfiltered), 'req/s', '≥ 50 % (≤ 2×)', (r) => r >= 0.5);
    rows.push(await queryRow('audit-target', `&target= one of ${TARGETS} targets drawn per request`, target));
    rows.push(await queryRow('audit-group', `&action= one of ${GROUPS.length} action groups drawn per request`, () => `&action=${pick(GROUPS)}`));
    rows.push(await queryRow('audit-deep-cursor', `&cursor= one of ${cursors.length} positions 0–50 % from the oldest entry, drawn per request`, () => `&cursor=${pick(cursors)}`));
    return rows;
  } finally {
    await Promise.all([on.stop(), off.stop()]);
    rmSync(dataDir, { recursive: true, force: true });
    await database.drop();
  }
}

if (require.main === module) {
  runStandalone(async () => {
    for (const r of await runAuditRows()) log(`${r.id}: ${fmt(r.figure)} against ${fmt(r.baselineFigure)} ${r.unit}, ratio ${fmt(r.ratio, 3)} ${r.met ? 'met' : 'MISSED'} (${r.target})`);
  });
}
