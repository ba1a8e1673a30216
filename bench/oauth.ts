/**
 * The OAuth rows of #21: the client credentials grant with a secret (`client_secret_basic`) and with a key
 * (`private_key_jwt`), each against the refresh exchange (neither costs an argon2id verify: target ≥ 1× the refresh
 * rate), and token introspection against the bare route. `npm run bench` measures them in its own run
 * (bench/run.ts, section 1c and 3b); `node dist-bench/bench/oauth.js` measures them alone (below).
 *
 * The service accounts are made through the API with the admin's token, as an operator makes them: a custom role
 * holding `tokens:introspect` (POST /v1/roles), BENCH_SERVICE_ACCOUNTS accounts with that role (each its first secret
 * in the answer) and each an EC P-256 public key with its `kid` (PUT /v1/service-accounts/{id}/keys). Every request
 * is one account's, drawn at random, as many services would call (no row holds only for one warm account); every
 * introspection is of one of BENCH_INTROSPECTED_TOKENS access tokens, drawn at random. Every `private_key_jwt` request
 * carries an assertion never sent before (its own `jti`, `exp` 2 minutes ahead, under the service's 5): signed
 * with node:crypto (ES256, IEEE P1363 signature) before each run, outside its window, so the load generator's
 * signing does not take the api's CPU during the window; a request finding the pool empty signs one on the spot.
 */
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, type KeyObject, randomUUID, sign } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Connection } from 'mysql2/promise';
import { connectTo, createTestDatabase } from '../test/support/test-database';
import { closeAgent, closedLoop, type LoadSpec, type Measure, median, signInToken } from './load';
import { provideKafka } from '../test/support/kafka';
import { databaseServerProcess, processCpuSeconds, sample } from './probes';
import { log, ROOT, startTarget, type Target } from './processes';
import { refreshChains } from './refresh-chains';
import { seedUsers } from './seed';
import { BENCH_ADMIN, runStandalone } from './standalone';

const FORM = 'application/x-www-form-urlencoded';
const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
/** Outlives the run it was signed for by far, and stays under the service's limit of 5 minutes. */
const ASSERTION_LIFETIME_SECONDS = 120;
/** Assertions signed before a pool's first run (more than a quiet run sends: none is signed inside a window); later runs sign 1.5× what the previous one used. */
const FIRST_POOL = process.env.BENCH_SMOKE === '1' ? 4000 : 16_000;

/**
 * Introspection against the bare route. A resource server that introspects puts one introspection in front of
 * each of its own requests, so an introspection should cost about what our own authenticated read costs: it
 * verifies a token and reads its user as `GET /v1/users` does, and authenticates its caller where the list reads
 * its page. The list's target is 40 % of the bare route and it measured 25–27 % in the full runs; an introspection
 * below 25 % costs a resource server more than our authenticated read (docs/BENCHMARKS.md, "OAuth rows").
 */
export const INTROSPECT_MIN_RATIO = 0.25;
export const INTROSPECT_TARGET = '≥ 25 %';
/** A grant hashes no password: it must serve at least what the refresh exchange serves. */
export const GRANT_MIN_RATIO = 1;
export const GRANT_TARGET = '≥ 1×';

export interface BenchServiceAccount {
  id: string;
  clientId: string;
  secret: string;
  privateKey: KeyObject;
  kid: string;
}

async function asAdmin<T>(url: string, token: string, method: string, route: string, body: unknown, expected: number): Promise<T> {
  const response = await fetch(`${url}${route}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (response.status !== expected) throw new Error(`${method} ${route} answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as T;
}

/** How many service accounts the rows draw from: each request is one of them, chosen at random, as many services would call. */
export const BENCH_SERVICE_ACCOUNTS = 50;

/** A role holding `tokens:introspect`, and `count` service accounts holding it, each with its secret and an ES256 key of its own. */
export async function createBenchServiceAccounts(url: string, adminToken: string, suffix: string, count = BENCH_SERVICE_ACCOUNTS): Promise<BenchServiceAccount[]> {
  const role = `bench-introspector-${suffix}`;
  await asAdmin(url, adminToken, 'POST', '/v1/roles', { name: role, permissions: ['tokens:introspect'] }, 201);
  const accounts: BenchServiceAccount[] = [];
  for (let i = 0; i < count; i++) {
    const account = await asAdmin<{ _id: string; client_id: string; client_secret: string }>(url, adminToken, 'POST', '/v1/service-accounts', { name: `bench-service-${suffix}-${i}`, role }, 201);
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const kid = `bench-key-${i}`;
    const jwk = { ...(publicKey.export({ format: 'jwk' }) as Record<string, string>), kid, alg: 'ES256', use: 'sig' };
    await asAdmin(url, adminToken, 'PUT', `/v1/service-accounts/${account._id}/keys`, { keys: [jwk] }, 200);
    accounts.push({ id: account._id, clientId: account.client_id, secret: account.client_secret, privateKey, kid });
  }
  return accounts;
}

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;

/** How many access tokens the introspection row draws from: each sign-in's own (argon2id, outside every window). */
export const BENCH_INTROSPECTED_TOKENS = 20;

/** `count` access tokens of `credentials`, each from a sign-in of its own, to introspect. */
export async function accessTokens(url: string, credentials: { username: string; password: string }, count = BENCH_INTROSPECTED_TOKENS): Promise<string[]> {
  const tokens: string[] = [];
  for (let i = 0; i < count; i++) tokens.push(await signInToken(url, credentials));
  return tokens;
}

const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** An RFC 7523 client assertion: `iss` = `sub` = the client id, `aud` the issuer, a new `jti`, ES256. */
export function clientAssertion(account: BenchServiceAccount, audience: string): string {
  const now = Math.floor(Date.now() / 1000);
  const signingInput = `${part({ alg: 'ES256', typ: 'JWT', kid: account.kid })}.${part({ iss: account.clientId, sub: account.clientId, aud: audience, iat: now, exp: now + ASSERTION_LIFETIME_SECONDS, jti: randomUUID() })}`;
  const signature = sign('sha256', Buffer.from(signingInput), { key: account.privateKey, dsaEncoding: 'ieee-p1363' });
  return `${signingInput}.${signature.toString('base64url')}`;
}

export interface OAuthSpecs {
  secretGrant: LoadSpec;
  keyGrant: LoadSpec;
  introspection: LoadSpec;
  /** What the runs so far saw: assertions signed inside a window (pool empty), grants without a token, introspections answered inactive. */
  counts(): { signedInWindow: number; failedGrants: number; inactive: number };
}

/**
 * The three requests, each from one of `accounts` drawn at random; `audience` is the api's issuer (JWT_ISSUER),
 * `accessTokens` users' valid access tokens, one of them introspected per request, drawn at random too.
 */
export function oauthSpecs(accounts: readonly BenchServiceAccount[], audience: string, accessTokens: readonly string[]): OAuthSpecs {
  const basicOf = (account: BenchServiceAccount) =>
    `Basic ${Buffer.from(`${encodeURIComponent(account.clientId)}:${encodeURIComponent(account.secret)}`).toString('base64')}`;
  const basics = accounts.map(basicOf);
  const randomBasic = () => ({ authorization: pick(basics) });
  const pool: string[] = [];
  let taken = 0;
  let signedInWindow = 0;
  let failedGrants = 0;
  let inactive = 0;
  const granted = (status: number, body: string) => {
    if (status !== 200 || !body.includes('"access_token"')) failedGrants++;
  };
  return {
    secretGrant: { method: 'POST', path: '/oauth/token', contentType: FORM, requestHeaders: randomBasic, body: () => 'grant_type=client_credentials', onResponse: granted },
    keyGrant: {
      method: 'POST',
      path: '/oauth/token',
      contentType: FORM,
      body: () => {
        taken++;
        let assertion = pool.pop();
        if (assertion === undefined) {
          signedInWindow++;
          assertion = clientAssertion(pick(accounts), audience);
        }
        return `grant_type=client_credentials&client_assertion_type=${encodeURIComponent(JWT_BEARER)}&client_assertion=${assertion}`;
      },
      onResponse: granted,
      // Fresh assertions for this run, signed outside its window (the last run's leftovers are dropped: older, never sent).
      prepare: async () => {
        const wanted = Math.max(FIRST_POOL, Math.ceil(taken * 1.5));
        pool.length = 0;
        taken = 0;
        for (let i = 0; i < wanted; i++) pool.push(clientAssertion(pick(accounts), audience));
      },
    },
    introspection: {
      method: 'POST',
      path: '/oauth/introspect',
      contentType: FORM,
      requestHeaders: randomBasic,
      body: () => `token=${pick(accessTokens)}`,
      onResponse: (status, body) => {
        if (status !== 200 || !body.includes('"active":true')) inactive++;
      },
    },
    counts: () => ({ signedInWindow, failedGrants, inactive }),
  };
}

/** One request of each before any run: a 401 or an inactive answer must stop the bench, not be measured. */
export async function checkOAuthSpecs(url: string, specs: OAuthSpecs): Promise<void> {
  for (const [name, spec, expect] of [['secret grant', specs.secretGrant, '"access_token"'], ['key grant', specs.keyGrant, '"access_token"'], ['introspection', specs.introspection, '"active":true']] as const) {
    await spec.prepare?.(1);
    const response = await fetch(`${url}${spec.path}`, { method: 'POST', headers: { ...spec.headers, ...spec.requestHeaders?.(), 'content-type': FORM }, body: spec.body!() });
    const text = await response.text();
    if (response.status !== 200 || !text.includes(expect)) throw new Error(`${name}: ${response.status} ${text}`);
  }
}

// ------------------------------------------------------------------------------------------
// `node dist-bench/bench/oauth.js`: these rows alone, with the CPU each process used
// ------------------------------------------------------------------------------------------

/** BENCH_SMOKE=1: one round of 1 s per pair, to see that it runs (not a measurement). */
const SMOKE = process.env.BENCH_SMOKE === '1';
/** BENCH_ROUNDS: rounds per pair (default 3). */
const ROUNDS = SMOKE ? 1 : Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = SMOKE ? 1 : 4;
const CONNECTIONS = 10;
/**
 * BENCH_RELAY=1: the api publishes its outbox to a real Kafka (test/support/kafka.ts: KAFKA_BROKERS, or a broker
 * of its own) as in `npm run bench`, instead of RELAY_ENABLED=false; each run then also says how many events the
 * relay published and in how many passes (its /metrics). BENCH_ONLY=<substring>: only the pairs whose label has it.
 */
const RELAY = process.env.BENCH_RELAY === '1';
const ONLY = process.env.BENCH_ONLY ?? '';

interface Costed extends Measure { cores: number; perCore: number; dbMsPerOp: number | null; kafkaMsPerOp: number | null; lockWaitsPerOp: number; statementsPerOp: number; eventsPerOp: number; eventsPerPass: number }

/** The process of this machine listening on the first broker's port (the Kafka broker of BENCH_RELAY), or null. */
function listenerPid(brokers: string): number | null {
  const port = /:(\d+)$/.exec(brokers.split(',')[0] ?? '')?.[1];
  if (!port) return null;
  try {
    const line = execFileSync('ss', ['-ltnpH', `sport = :${port}`], { encoding: 'utf8' });
    const pid = /pid=(\d+)/.exec(line)?.[1];
    return pid ? Number(pid) : null;
  } catch {
    return null;
  }
}
let kafkaPid: number | null = null;

/** Events the relay published, and its publishes (one a pass), from the api's /metrics; zeros without a metrics listener. */
async function relayCounters(target: Target): Promise<{ events: number; passes: number }> {
  if (!target.metricsUrl) return { events: 0, passes: 0 };
  const text = await (await fetch(`${target.metricsUrl}/metrics`)).text();
  const passes = [...text.matchAll(/^access_control_events_publish_duration_seconds_count\{[^}]*\} (\S+)/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
  return { events: sample(text, 'access_control_events_published_total') || 0, passes };
}

/** Server-wide counters: statements received (`Questions`), and InnoDB's row lock waits (a statement waited for a row another transaction held). */
async function serverCounters(connection: Connection): Promise<{ statements: number; lockWaits: number }> {
  const [rows] = (await connection.query("SHOW GLOBAL STATUS WHERE Variable_name IN ('Questions', 'Innodb_row_lock_waits')")) as unknown as [{ Variable_name: string; Value: string }[]];
  const value = (name: string) => Number(rows.find((row) => row.Variable_name === name)?.Value ?? NaN);
  return { statements: value('Questions'), lockWaits: value('Innodb_row_lock_waits') };
}

/**
 * A closed-loop run (its `prepare` first, outside the measured CPU) with the CPU its target process used over the
 * window, from /proc/<pid>/stat: cores = CPU seconds / wall seconds, per core = answered requests / CPU seconds.
 */
async function costed(target: Target, spec: LoadSpec, db: number | null, status: Connection): Promise<Costed> {
  await spec.prepare?.(CONNECTIONS);
  const pid = target.child.pid!;
  const counters0 = await serverCounters(status);
  const relay0 = await relayCounters(target);
  const [cpu0, db0, t0] = [processCpuSeconds(pid), db === null ? 0 : processCpuSeconds(db), performance.now()];
  const kafka0 = kafkaPid === null ? 0 : processCpuSeconds(kafkaPid);
  const m = await closedLoop(target.url, { ...spec, prepare: undefined }, CONNECTIONS, SECONDS);
  const [cpu, dbCpu, wall] = [processCpuSeconds(pid) - cpu0, db === null ? 0 : processCpuSeconds(db) - db0, (performance.now() - t0) / 1000];
  const kafkaCpu = kafkaPid === null ? 0 : processCpuSeconds(kafkaPid) - kafka0;
  const ok = m.rps * SECONDS;
  const counters = await serverCounters(status);
  const relay = await relayCounters(target);
  const per = (delta: number) => (ok > 0 ? delta / ok : 0);
  const passes = relay.passes - relay0.passes;
  return {
    ...m, cores: cpu / wall, perCore: cpu > 0 ? ok / cpu : 0, dbMsPerOp: db === null || ok === 0 ? null : (dbCpu * 1000) / ok, kafkaMsPerOp: kafkaPid === null || ok === 0 ? null : (kafkaCpu * 1000) / ok, lockWaitsPerOp: per(counters.lockWaits - counters0.lockWaits),
    statementsPerOp: per(counters.statements - counters0.statements), eventsPerOp: per(relay.events - relay0.events), eventsPerPass: passes > 0 ? (relay.events - relay0.events) / passes : 0,
  };
}

async function runOAuthRows(): Promise<void> {
  const admin = BENCH_ADMIN;
  const issuer = 'http://bench.local';
  process.env.TEST_DATABASE_SERVER_URL ??= 'mariadb://root@127.0.0.1:3306';
  const database = await createTestDatabase('ac_bench_oauth');
  const kafka = RELAY ? await provideKafka({ log, local: { projectRoot: ROOT } }) : null;
  kafkaPid = kafka ? listenerPid(kafka.brokers) : null;
  if (kafka) log(`Kafka broker CPU: ${kafkaPid === null ? 'not measured (no local listener found)' : `pid ${kafkaPid}`}`);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ac-bench-oauth-'));
  const env = {
    DATA_DIR: dataDir, ADMIN_USERNAME: admin.username, ADMIN_PASSWORD: admin.password, ADMIN_EMAIL: admin.email,
    BENCH_ADMIN_USERNAME: admin.username, JWT_ISSUER: issuer, DATABASE_URL: database.url,
    ...(kafka ? { KAFKA_BROKERS: kafka.brokers, KAFKA_TOPIC: `bench-oauth-${Date.now().toString(36)}` } : { RELAY_ENABLED: 'false' }),
    // One load generator is one client address and one client: the limits would measure themselves.
    ADDRESS_RATE_LIMIT: '0', INVITE_RATE_LIMIT: '0', CLIENT_AUTH_RATE_LIMIT: '0',
  };
  const api = await startTarget('api', 'api', env);
  let bare: Target | undefined;
  const status = await connectTo(database.url);
  try {
    // A full page of 10 users for the bare route's fixed JSON, as `npm run bench` serves it.
    await seedUsers(database.url, 1000);
    const token = await signInToken(api.url, admin);
    const page = await (await fetch(`${api.url}/v1/users`, { headers: { authorization: `Bearer ${token}` } })).text();
    bare = await startTarget('bare', 'bare', { ...env, BENCH_FIXED_PAGE: page });
    const accounts = await createBenchServiceAccounts(api.url, token, Date.now().toString(36));
    const specs = oauthSpecs(accounts, issuer, await accessTokens(api.url, admin));
    await checkOAuthSpecs(api.url, specs);
    const chains = refreshChains(api.url, admin);
    const server = await databaseServerProcess(database.url);
    const db = server.pid;
    log(`database CPU: ${server.pid === null ? `not measured (${server.why})` : server.how}`);
    const b = bare;
    const pairs: [string, () => Promise<Costed>, () => Promise<Costed>, number][] = [
      ['client_credentials, client_secret_basic vs refresh', () => costed(api, specs.secretGrant, db, status), () => costed(api, chains.spec, db, status), GRANT_MIN_RATIO],
      ['client_credentials, private_key_jwt vs refresh', () => costed(api, specs.keyGrant, db, status), () => costed(api, chains.spec, db, status), GRANT_MIN_RATIO],
      ['introspection vs bare route', () => costed(api, specs.introspection, db, status), () => costed(b, { path: '/page' }, null, status), INTROSPECT_MIN_RATIO],
      ['GET /v1/users (context, no target) vs bare route', () => costed(api, { path: '/v1/users', token }, db, status), () => costed(b, { path: '/page' }, null, status), 0],
    ];
    const summary: string[] = [];
    for (const [label, figure, baseline, min] of pairs.filter(([label]) => label.includes(ONLY))) {
      const f: Costed[] = [];
      const r: Costed[] = [];
      const ratios: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const [x, y] = round % 2 === 0 ? [await figure(), await baseline()] : (([q, p]) => [p, q])([await baseline(), await figure()]);
        f.push(x!);
        r.push(y!);
        ratios.push(y!.rps > 0 ? x!.rps / y!.rps : 0);
        log(`${label} round ${round + 1}: ${x!.rps.toFixed(0)}/s p50 ${x!.p50} p99 ${x!.p99} ms (errors ${x!.errors}) on ${x!.cores.toFixed(2)} api cores, ${x!.lockWaitsPerOp.toFixed(2)} row lock waits each; baseline ${y!.rps.toFixed(0)}/s on ${y!.cores.toFixed(2)} cores (errors ${y!.errors}); ratio ${ratios.at(-1)!.toFixed(3)}${RELAY ? `; relay ${x!.eventsPerOp.toFixed(2)} events/op, ${x!.eventsPerPass.toFixed(1)} per pass, Kafka ${x!.kafkaMsPerOp?.toFixed(3)} ms CPU/op (baseline ${y!.eventsPerOp.toFixed(2)}, ${y!.eventsPerPass.toFixed(1)}, ${y!.kafkaMsPerOp?.toFixed(3)} ms)` : ''}`);
      }
      const med = (values: Costed[], pick: (c: Costed) => number | null) => median(values.map((c) => pick(c) ?? NaN));
      const ratio = median(ratios);
      summary.push(
        `${label}: ${med(f, (c) => c.rps).toFixed(0)} req/s (p50 ${med(f, (c) => c.p50)} / p99 ${med(f, (c) => c.p99)} ms) on ${med(f, (c) => c.cores).toFixed(2)} api cores = ${med(f, (c) => c.perCore).toFixed(0)} per api core-second, ` +
          `database ${med(f, (c) => c.dbMsPerOp).toFixed(3)} ms CPU, ${med(f, (c) => c.statementsPerOp).toFixed(1)} statements and ${med(f, (c) => c.lockWaitsPerOp).toFixed(2)} row lock waits per request; baseline ${med(r, (c) => c.rps).toFixed(0)} req/s on ${med(r, (c) => c.cores).toFixed(2)} cores = ${med(r, (c) => c.perCore).toFixed(0)} per core-second` +
          `${med(r, (c) => c.dbMsPerOp) >= 0 ? `, database ${med(r, (c) => c.dbMsPerOp).toFixed(3)} ms CPU, ${med(r, (c) => c.statementsPerOp).toFixed(1)} statements and ${med(r, (c) => c.lockWaitsPerOp).toFixed(2)} row lock waits per request` : ''}${RELAY ? `; relay ${med(f, (c) => c.eventsPerOp).toFixed(2)} events per request, ${med(f, (c) => c.eventsPerPass).toFixed(1)} per pass, Kafka broker ${med(f, (c) => c.kafkaMsPerOp).toFixed(3)} ms CPU per request (baseline ${med(r, (c) => c.kafkaMsPerOp).toFixed(3)})` : ''}; ratio ${ratio.toFixed(3)} (median of ${ROUNDS})${min > 0 ? (ratio >= min ? ' met' : ' MISSED') : ''}`,
      );
    }
    const counts = specs.counts();
    summary.push(`assertions signed inside a window: ${counts.signedInWindow}; grants without a token: ${counts.failedGrants}; introspections not active: ${counts.inactive}; sign-ins minting refresh chains: ${chains.minted()}`);
    for (const line of summary) log(line);
  } finally {
    await status.end();
    await Promise.all([api.stop(), bare?.stop()]);
    closeAgent();
    rmSync(dataDir, { recursive: true, force: true });
    await database.drop();
    await kafka?.stop();
  }
}

if (require.main === module) runStandalone(runOAuthRows);
