/**
 * The second factor's row of #24: a sign-in of a user with an authenticator app, both steps (the password, then
 * the ticket and a current code), against a sign-in of a user without a factor (target ≥ 90 %: the argon2id verify
 * is the cost of both, and the second step must add little). `npm run bench` measures it in its own run
 * (bench/run.ts, section 1d); `node dist-bench/bench/mfa.js` measures it alone (below).
 *
 * The users are seeded straight into the database, as bench/seed.ts seeds, BENCH_MFA_USERS of each kind (one
 * argon2id hash for all: the verify costs the same), the TOTP half with a secret sealed by the api's key
 * (DATA_DIR's, read here). Each request is a user drawn at random among those whose code of the current 30-second
 * step is not used yet: a step's code signs in once (the service refuses a replay), as a person's would.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { hash } from '@node-rs/argon2';
import autocannon from 'autocannon';
import { ARGON2_OPTIONS } from '../src/infrastructure/crypto/argon2-password-hasher';
import { AesGcmSecretCipher, loadOrCreateLocalMfaKey } from '../src/infrastructure/crypto/aes-gcm-secret-cipher';
import { connectTo } from '../test/support/test-database';
import { closedLoop, type LoadSpec, type Measure, median } from './load';
import { log } from './processes';
import { connect, costOf, databaseServerProcess, describeCost } from './probes';
import { orderedUuidV7, rebuildListIndexOn } from './seed';
import { runStandalone, standaloneApi } from './standalone';

export const MFA_MIN_RATIO = 0.9;
export const MFA_TARGET = '≥ 90 %';
const MEMBER_ROLE = '01a1fc94-6d94-7441-a6a7-5c24f14ccb6a';
const PASSWORD = 'bench-mfa-password-1';
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const STEP_MS = 30_000;

interface BenchUser { username: string; secret?: Buffer; lastStep: number }

export interface MfaBench {
  /** Both steps for users with an authenticator app: a measure counts whole sign-ins (step two answered 200). */
  withFactor(url: string, connections: number, seconds: number): Promise<Measure>;
  /** The password step for users without a factor, each request one drawn at random. */
  withoutFactor: LoadSpec;
  /** Sign-ins that found no user with an unused code for the current step (then a code is replayed and refused). */
  starved(): number;
}

function base32(bytes: Buffer): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return bits > 0 ? out + BASE32[(value << (5 - bits)) & 31] : out;
}

/** RFC 6238 (SHA-1, six digits) for a time step, from RFC 4226's dynamic truncation. */
export function totpCode(secret: Buffer, step: number): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac('sha1', secret).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

/** `count` joined members of each kind, the TOTP half with a confirmed factor sealed with the key under `dataDir`. */
export async function seedMfaUsers(databaseUrl: string, dataDir: string, count: number, prefix: string): Promise<MfaBench> {
  const cipher = new AesGcmSecretCipher(loadOrCreateLocalMfaKey(dataDir));
  const passwordHash = await hash(PASSWORD, ARGON2_OPTIONS);
  const connection = await connectTo(databaseUrl);
  const withApp: BenchUser[] = [];
  const plain: BenchUser[] = [];
  try {
    const now = new Date();
    const users: unknown[][] = [];
    const factors: unknown[][] = [];
    for (let i = 0; i < 2 * count; i++) {
      const username = `${prefix}-${i % 2 === 0 ? 'totp' : 'plain'}-${i}`;
      const id = orderedUuidV7(Date.UTC(2025, 0, 1), i);
      users.push([id, `${username}@bench.test`, `${username}@bench.test`, username, username, username, username, passwordHash, MEMBER_ROLE, now, now, 'active']);
      if (i % 2 === 0) {
        const secret = randomBytes(20);
        factors.push([orderedUuidV7(Date.UTC(2025, 6, 1), i), id, 'totp', cipher.seal(base32(secret)), now, now]);
        withApp.push({ username, secret, lastStep: 0 });
      } else plain.push({ username, lastStep: 0 });
    }
    await connection.query('INSERT INTO users (id, email, email_key, name, name_key, username, username_key, password_hash, role_id, invited_at, joined_at, status) VALUES ?', [users]);
    await connection.query('INSERT INTO mfa_factors (id, user_id, type, sealed_secret, created_at, confirmed_at) VALUES ?', [factors]);
    await rebuildListIndexOn(connection);
  } finally {
    await connection.end();
  }
  return mfaBench(withApp, plain);
}

function mfaBench(withApp: BenchUser[], plain: BenchUser[]): MfaBench {
  let starved = 0;
  let cursor = Math.floor(Math.random() * withApp.length);
  /** A user whose code of the current step is unused, from a random place on (a replay would be refused). */
  const nextUser = (): { user: BenchUser; step: number } => {
    const step = Math.floor(Date.now() / STEP_MS);
    for (let tried = 0; tried < withApp.length; tried++) {
      cursor = (cursor + 1 + Math.floor(Math.random() * 7)) % withApp.length;
      const user = withApp[cursor]!;
      if (user.lastStep < step) {
        user.lastStep = step;
        return { user, step };
      }
    }
    starved++;
    return { user: withApp[cursor]!, step };
  };
  const json = { 'content-type': 'application/json' };
  return {
    async withFactor(url, connections, seconds) {
      let done = 0;
      let failed = 0;
      type Context = { user?: BenchUser; step?: number; ticket?: string };
      const result = await autocannon({
        url,
        connections,
        duration: seconds,
        requests: [
          {
            method: 'POST',
            path: '/v1/auth/signin',
            headers: json,
            setupRequest: (request, context) => {
              const { user, step } = nextUser();
              Object.assign(context as Context, { user, step });
              return { ...request, body: JSON.stringify({ username: user.username, password: PASSWORD }) };
            },
            onResponse: (status, body, context) => {
              const ticket = status === 401 ? (JSON.parse(body) as { mfa_token?: string }).mfa_token : undefined;
              if (!ticket) failed++;
              (context as Context).ticket = ticket;
            },
          },
          {
            method: 'POST',
            path: '/v1/auth/signin/mfa',
            headers: json,
            setupRequest: (request, context) => {
              const { user, step, ticket } = context as Context;
              return { ...request, body: JSON.stringify({ mfa_token: ticket ?? 'no-ticket', code: totpCode(user!.secret!, step!) }) };
            },
            onResponse: (status) => {
              if (status === 200) done++;
              else failed++;
            },
          },
        ],
      });
      // The first step's 401 (MFA_REQUIRED) is its expected answer: only whole sign-ins count. Latencies are per request.
      return { rps: done / seconds, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.timeouts + failed };
    },
    withoutFactor: {
      method: 'POST',
      path: '/v1/auth/signin',
      body: () => JSON.stringify({ username: plain[Math.floor(Math.random() * plain.length)]!.username, password: PASSWORD }),
    },
    starved: () => starved,
  };
}

// ------------------------------------------------------------------------------------------
// `node dist-bench/bench/mfa.js`: this row alone (BENCH_SMOKE=1: one short round)
// ------------------------------------------------------------------------------------------

async function runMfaRow(): Promise<void> {
  const smoke = process.env.BENCH_SMOKE === '1';
  const [rounds, seconds, users] = smoke ? [1, 2, 200] : [3, 4, Number(process.env.BENCH_MFA_USERS ?? 3000)];
  const { api, databaseUrl, dataDir, stop } = await standaloneApi('mfa');
  try {
    const bench = await seedMfaUsers(databaseUrl, dataDir, users, 'mfa');
    // `npm run bench` runs the row at the sign-in's best concurrency, 8 on this machine (bench/run.ts, section 1d).
    const connections = Number(process.env.BENCH_MFA_CONNECTIONS ?? 8);
    // Both paths once before the rounds, unmeasured: the first round would otherwise time the JIT and the new
    // users' first reads on whichever side it runs first (the factor's, always: it read 0.71–0.73 against 0.79–0.90).
    await bench.withFactor(api.url, connections, smoke ? 1 : 2);
    await closedLoop(api.url, bench.withoutFactor, connections, smoke ? 1 : 2);
    const ratios: number[] = [];
    // Where each side's machine time goes: CPU per sign-in of the api (its main thread and hashing threads), of the
    // database server (when it runs here) and of this load generator, and the server's statements.
    const database = await databaseServerProcess(databaseUrl);
    const status = await connect(databaseUrl);
    const costed = async (run: () => Promise<Measure>): Promise<Measure> => {
      const { measure, cost } = await costOf({ api: api.child.pid!, database: database.pid }, status, run, (m) => m.rps * seconds);
      log(`  ${describeCost(cost)}`);
      return measure;
    };
    for (let round = 0; round < rounds; round++) {
      const withFactor = () => costed(() => bench.withFactor(api.url, connections, seconds));
      const without = () => costed(() => closedLoop(api.url, bench.withoutFactor, connections, seconds));
      const [f, b] = round % 2 === 0 ? [await withFactor(), await without()] : (([y, x]) => [x, y])([await without(), await withFactor()]);
      ratios.push(b!.rps > 0 ? f!.rps / b!.rps : 0);
      log(`mfa round ${round + 1}: with TOTP ${f!.rps.toFixed(1)} sign-ins/s p99 ${f!.p99} ms (errors ${f!.errors}); without ${b!.rps.toFixed(1)}/s p99 ${b!.p99} ms (errors ${b!.errors}); ratio ${ratios.at(-1)!.toFixed(3)}`);
    }
    const ratio = median(ratios);
    await status.end();
    log(`sign-in with TOTP (both steps) vs without a factor: ${(ratio * 100).toFixed(1)} % (median of ${rounds}; target ${MFA_TARGET}) ${ratio >= MFA_MIN_RATIO ? 'met' : 'MISSED'}; ${bench.starved()} requests found no unused code`);
  } finally {
    await stop();
  }
}

if (require.main === module) runStandalone(runMfaRow);
