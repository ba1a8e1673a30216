/**
 * Load for POST /v1/auth/refresh (#10). A refresh token works once (rotation), and presenting a used one
 * revokes its whole family, so every request of a run must send a token never sent before. The chains
 * below do it: sign-ins before the run (outside its window) mint one fresh token per connection into a
 * pool; each request takes a token from the pool and each successful answer puts its successor back.
 * A token is thus in the pool only once its predecessor was answered: every family has one exchange in
 * flight at a time, and no token is sent twice. A connection answered with anything but 200 loses its
 * chain; when the pool is empty the request sends a token that does not exist, which the service answers
 * 401 and the run counts as an error (never a reuse, which would revoke a family).
 *
 * The tokens left in the pool after a run are unused and stay for the next one; those in flight when a
 * run by duration ends are lost (sent, answer never read) and the next run's `prepare` mints replacements.
 */
import { closedLoop, fixedCount, type LoadSpec, median } from './load';
import { scrape } from './probes';
import { log } from './processes';
import { BENCH_ADMIN, runStandalone, standaloneApi } from './standalone';

/** Refused by the service as unknown (well-formed, so a 401 and not a 400). */
const NO_TOKEN_LEFT = 'bench-refresh-pool-empty';
/** Sign-ins in flight while minting: enough to keep the hashing threads busy, few enough not to queue. */
const MINT_CONCURRENCY = 4;

export interface RefreshChains {
  spec: LoadSpec;
  /** Sign-ins made so far to mint tokens (none of them inside a measured window). */
  minted(): number;
}

export function refreshChains(url: string, credentials: { username: string; password: string }): RefreshChains {
  const pool: string[] = [];
  let minted = 0;
  const signIn = async (): Promise<string> => {
    const response = await fetch(`${url}/v1/auth/signin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: credentials.username, password: credentials.password }),
    });
    if (response.status !== 200) throw new Error(`sign-in for a refresh chain failed: ${response.status}`);
    minted++;
    return ((await response.json()) as { refreshToken: string }).refreshToken;
  };
  const fill = async (connections: number) => {
    let missing = connections - pool.length;
    const worker = async () => {
      while (missing > 0) {
        missing--;
        pool.push(await signIn());
      }
    };
    await Promise.all(Array.from({ length: Math.min(MINT_CONCURRENCY, Math.max(0, missing)) }, worker));
  };
  return {
    spec: {
      method: 'POST',
      path: '/v1/auth/refresh',
      body: () => JSON.stringify({ refreshToken: pool.shift() ?? NO_TOKEN_LEFT }),
      onResponse: (status, body) => {
        if (status !== 200) return;
        const next = (JSON.parse(body) as { refreshToken?: string }).refreshToken;
        if (next) pool.push(next);
      },
      prepare: fill,
    },
    minted: () => minted,
  };
}

/**
 * `node dist-bench/bench/refresh-chains.js` (after `npm run bench` or `npx tsc -p tsconfig.bench.json` compiled it):
 * the `refresh` row alone, as run.ts measures it (sign-in probed at concurrency 2/4/8, then 3 interleaved rounds
 * of 4 s: refresh at 10 connections against sign-in at its best concurrency, on one api), followed by the CPU
 * per operation of each as the capacity section measures it (the api's own `process_cpu_seconds_total` around
 * a run of known count). On a new database of TEST_DATABASE_SERVER_URL (default the local MariaDB), no Kafka.
 */
async function runRefreshRow(): Promise<void> {
  const admin = BENCH_ADMIN;
  const { api, stop } = await standaloneApi('refresh');
  try {
    const signInSpec: LoadSpec = { method: 'POST', path: '/v1/auth/signin', body: () => JSON.stringify({ username: admin.username, password: admin.password }) };
    let best = { concurrency: 2, rps: 0 };
    for (const c of [2, 4, 8]) {
      const m = await closedLoop(api.url, signInSpec, c, 2);
      log(`sign-in probe: concurrency ${c}: ${m.rps.toFixed(1)}/s`);
      if (m.rps > best.rps) best = { concurrency: c, rps: m.rps };
    }
    const chains = refreshChains(api.url, admin);
    const refresh = () => closedLoop(api.url, chains.spec, 10, 4);
    const signIn = () => closedLoop(api.url, signInSpec, best.concurrency, 4);
    const ratios: number[] = [];
    for (let round = 0; round < 3; round++) {
      const [r, s] = round % 2 === 0 ? [await refresh(), await signIn()] : (([y, x]) => [x, y])([await signIn(), await refresh()]);
      ratios.push(s!.rps > 0 ? r!.rps / s!.rps : 0);
      log(`refresh round ${round + 1}: ${r!.rps.toFixed(0)}/s p50 ${r!.p50} ms p99 ${r!.p99} ms (errors ${r!.errors}); sign-in ${s!.rps.toFixed(1)}/s (errors ${s!.errors}); ratio ${ratios.at(-1)!.toFixed(2)}×`);
    }
    log(`refresh: ${median(ratios).toFixed(2)}× sign-in (median of 3 rounds); ${chains.minted()} sign-ins minted the chains`);
    const metrics = `${api.metricsUrl}/metrics`;
    for (const [id, spec, connections, [warm, count]] of [['sign-in', signInSpec, best.concurrency, [40, 800]], ['refresh', chains.spec, 10, [500, 5000]]] as const) {
      await fixedCount(api.url, spec, connections, warm);
      await spec.prepare?.(connections);
      const before = await scrape(metrics);
      const run = await fixedCount(api.url, spec, connections, count);
      const cpu = (await scrape(metrics)).cpuSeconds - before.cpuSeconds;
      log(`capacity ${id}: ${run.ok} in ${run.seconds.toFixed(1)} s (errors ${run.errors}), ${((cpu * 1000) / run.ok).toFixed(3)} ms of api CPU each (${(run.ok / cpu).toFixed(0)}/core-s)`);
    }
  } finally {
    await stop();
  }
}

if (require.main === module) runStandalone(runRefreshRow);
