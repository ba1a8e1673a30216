import { closedLoop, median, signInToken } from './load';
import { log } from './processes';
import { BENCH_ADMIN, runStandalone, seededOnce, standaloneApi } from './standalone';

/**
 * The filtered user pages the bench measures at the largest size (issue #11), each against the unfiltered
 * page 1 of the same service in the same run. What they match follows from bench/seed.ts: every 1000th seeded
 * user holds the admin role, every 50th is deactivated, the rest are pending members.
 */
export interface FilteredPage {
  id: string;
  query: string;
  /** What the filter selects, for the row's scenario. */
  matches: string;
}

export function filteredPages(users: number): FilteredPage[] {
  // "seed" + a number whose decimal form starts 11 seeded e-mails at 1 M (seed12500, seed125000…125009).
  const prefix = `seed${Math.floor(users / 80)}`;
  return [
    { id: 'users-filter-role', query: 'role=admin', matches: 'the admins, 0.1 % of users: index (role_id, id)' },
    { id: 'users-filter-status', query: 'status=deactivated', matches: '2 % of users: index (status, id)' },
    { id: 'users-filter-email', query: `email=SEED${Math.floor(users / 2)}%40bench.test`, matches: 'one user: unique email_key' },
    { id: 'users-filter-q', query: `q=${prefix.toUpperCase()}`, matches: '11 users: three key ranges, UNION' },
    { id: 'users-filter-wide', query: 'status=pending', matches: '98 % of users: the exact total counts them all' },
  ];
}

/**
 * `node dist-bench/bench/filters.js`: the filtered rows alone, as run.ts measures them (3 interleaved rounds of
 * 4 s, 10 connections, each against the unfiltered page 1 of the same api), without the rest of the bench.
 * BENCH_FILTERS_DATABASE_URL: an already seeded database to reuse (seeded up to BENCH_FILTERS_USERS, default
 * 1 000 000, when it holds fewer); otherwise a new one on TEST_DATABASE_SERVER_URL (default the local MariaDB),
 * dropped at the end unless BENCH_FILTERS_KEEP=1.
 */
async function runFilterRows(): Promise<void> {
  const users = Number(process.env.BENCH_FILTERS_USERS ?? 1_000_000);
  const { api, databaseUrl, stop } = await standaloneApi('filters', { given: process.env.BENCH_FILTERS_DATABASE_URL, keep: process.env.BENCH_FILTERS_KEEP === '1', label: 'api@big' });
  try {
    await seededOnce(databaseUrl, users);
    const token = await signInToken(api.url, BENCH_ADMIN);
    const page = () => closedLoop(api.url, { path: '/v1/users', token }, 10, 4);
    for (const f of filteredPages(users)) {
      const ratios: number[] = [];
      const figures: number[] = [];
      const p99s: number[] = [];
      for (let round = 0; round < 3; round++) {
        const filtered = () => closedLoop(api.url, { path: `/v1/users?${f.query}`, token }, 10, 4);
        const [a, b] = round % 2 === 0 ? [await filtered(), await page()] : (([y, x]) => [x, y])([await page(), await filtered()]);
        ratios.push(b!.rps > 0 ? a!.rps / b!.rps : 0);
        figures.push(a!.rps);
        p99s.push(a!.p99);
        log(`${f.id} round ${round + 1}: ${a!.rps.toFixed(0)}/s p99 ${a!.p99.toFixed(1)} ms (errors ${a!.errors}); page 1 ${b!.rps.toFixed(0)}/s; ratio ${ratios.at(-1)!.toFixed(3)}`);
      }
      log(`${f.id} (${f.query}): ${median(figures).toFixed(0)} req/s, p99 ${median(p99s).toFixed(1)} ms, ${(median(ratios) * 100).toFixed(0)} % of page 1 ${median(ratios) >= 0.5 ? 'met' : 'MISSED'}`);
    }
  } finally {
    await stop();
  }
}

if (require.main === module) runStandalone(runFilterRows);
