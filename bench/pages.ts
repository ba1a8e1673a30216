import http from 'node:http';
import { closedLoop, median, signInToken } from './load';
import { log } from './processes';
import { BENCH_ADMIN, poolAgainstUsers, poolNote, runStandalone, seededOnce, standaloneApi } from './standalone';

/**
 * The user list's deep pages (issue #26): `npm run bench` measures these rows in its own run (bench/run.ts, 4b and
 * 4c); `node dist-bench/bench/pages.js` measures them alone, without the rest of the bench.
 * - random pages drawn uniformly over the whole range against page 1, for the whole list and each filter (closed
 *   loop, 10 connections, 3 interleaved rounds of 4 s, the median ratio); target ≥ 80 % of page 1's throughput;
 * - a full walk of every user at page_size 100, by page and by cursor (one client, one request after the other,
 *   as a sync job walks); target under 60 s at 1 M users.
 * BENCH_PAGES_DATABASE_URL: an already seeded database to reuse; otherwise a new one on TEST_DATABASE_SERVER_URL
 * (default the local MariaDB), seeded with BENCH_PAGES_USERS (default 1 000 000) as bench/seed.ts seeds, dropped at
 * the end unless BENCH_PAGES_KEEP=1. BENCH_PAGES_ONLY: comma-separated row ids to run (e.g. `random,walk-cursor`).
 */
export const DEEP_PAGE_MIN_RATIO = 0.8;
export const DEEP_PAGE_TARGET = '≥ 80 %';
export const WALK_MAX_SECONDS = 60;

interface ListAnswer { status: number; body: { users: { _id: string }[]; pagination: { page_count: number; total_document: number }; next?: string }; link: string | undefined }

function getJson(agent: http.Agent, url: string, token: string): Promise<ListAnswer> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent, headers: { authorization: `Bearer ${token}` } }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')), link: response.headers.link as string | undefined }),
        );
      })
      .on('error', reject);
  });
}

/** One list answer, on a connection of its own. */
async function listOnce(url: string, token: string): Promise<ListAnswer> {
  const agent = new http.Agent({ keepAlive: false });
  try {
    return await getJson(agent, url, token);
  } finally {
    agent.destroy();
  }
}

export interface PageRow {
  id: string;
  /** The list's query without `page` (the filter, if any); for a row with `draw`, one of the queries it draws. */
  query: string;
  /**
   * A query drawn anew for each request, both sides alike: the filters whose value a user types (an e-mail, a
   * prefix) are as many as the users typing them, and one value asked by every connection would let each side's
   * identical requests share their statements (BatchedLookup), the cheapest input there is.
   */
  draw?: () => string;
  matches: string;
}

/** A whole number below `n`, drawn uniformly. */
const below = (n: number) => Math.floor(Math.random() * n);

/** A number with as many digits as `n` (1 to 9 for one digit), drawn uniformly: `seed` and it is a prefix of as many seeded users as `seed${n}`. */
function sameDigits(n: number): number {
  const digits = String(Math.max(1, n)).length;
  const low = digits === 1 ? 1 : 10 ** (digits - 1);
  return low + below(10 ** digits - low);
}

/** The rows of `npm run bench`: each filter's deep pages (the whole list's are its `random-page` row). */
export function benchDeepPageRows(users: number): PageRow[] {
  return pageRows(users).filter((row) => row.id !== 'random');
}

/** The rows, from what bench/seed.ts seeds: every 1000th user an admin, every 50th deactivated, the rest pending members. */
export function pageRows(users: number): PageRow[] {
  return [
    { id: 'random', query: '', matches: 'every user: primary key from the bucket start' },
    { id: 'random-role', query: 'role=admin', matches: 'the admins, 0.1 %: (role_id, id, status)' },
    { id: 'random-status', query: 'status=deactivated', matches: '2 %: (status, id)' },
    { id: 'random-wide', query: 'status=pending', matches: '98 %: (status, id)' },
    { id: 'random-role-status', query: 'role=member&status=pending', matches: '~98 %: (role_id, status, id)' },
    // Any seeded user's e-mail, drawn for each request.
    { id: 'random-email', query: `email=seed${Math.floor(users / 2)}%40bench.test`, draw: () => `email=seed${below(users)}%40bench.test`, matches: 'one user, drawn per request: deep pages are past the end' },
    // A prefix of about 1 100 matches at 1 M users (seed125, seed1250…, seed12500…, seed125000…): 112 pages to draw from, not
    // the two of an 11-match prefix, where a deep page is page 2. Each request draws one of the 900 such (seed100…seed999).
    { id: 'random-q', query: `q=seed${Math.floor(users / 8000)}`, draw: () => `q=seed${sameDigits(Math.floor(users / 8000))}`, matches: '~0.1 % of users, the prefix drawn per request: every page counts every match' },
    // What one typed character finds: a tenth of the users (seed1…seed9, drawn per request), every page (page 1 too) counting them all.
    { id: 'random-q-wide', query: 'q=seed9', draw: () => `q=seed${sameDigits(9)}`, matches: '~11 % of users, the prefix drawn per request: every page, page 1 too, counts every match' },
  ];
}

/**
 * The row's pages, a path of one drawn uniformly among them per call (what a deep page of the row asks for), and
 * page 1's path given the same way: autocannon builds a request with a `setupRequest` anew each time, and one
 * without once. The load generator shares the 2 cores, so a baseline sent the cheap way read more page-1
 * requests a second than the same page sent the way the deep pages are (11–14 %, medians of interleaved rounds, 2026-11-28): both sides are now sent alike.
 */
export async function deepPages(apiUrl: string, token: string, row: PageRow): Promise<{ pages: number; total: number; path: () => string; firstPath: () => string }> {
  const first = await listOnce(`${apiUrl}/v1/users?${row.query}`, token);
  if (first.status !== 200) throw new Error(`/v1/users?${row.query}: ${first.status}`);
  // The email row's single page: its "deep" pages are drawn from the whole list's range (past the end, exact counts),
  // as the whole list counts them now.
  const range = row.id === 'random-email' ? (await listOnce(`${apiUrl}/v1/users`, token)).body : first.body;
  const pages = Math.max(1, range.pagination.page_count);
  const sep = row.query === '' ? '' : '&';
  const query = row.draw ?? (() => row.query);
  return { pages, total: first.body.pagination.total_document, path: () => `/v1/users?${query()}${sep}page=${1 + below(pages)}`, firstPath: () => `/v1/users?${query()}` };
}

async function randomRow(apiUrl: string, token: string, row: PageRow): Promise<void> {
  const { pages, total, path: random, firstPath } = await deepPages(apiUrl, token, row);
  const page1 = () => closedLoop(apiUrl, { path: '/v1/users', requestPath: firstPath, token }, 10, 4);
  const deep = () => closedLoop(apiUrl, { path: '/v1/users', requestPath: random, token }, 10, 4);
  const ratios: number[] = [];
  const figures: number[] = [];
  for (let round = 0; round < 3; round++) {
    const [a, b] = round % 2 === 0 ? [await deep(), await page1()] : (([y, x]) => [x, y])([await page1(), await deep()]);
    ratios.push(b!.rps > 0 ? a!.rps / b!.rps : 0);
    figures.push(a!.rps);
    log(`${row.id} round ${round + 1}: random of ${pages} pages ${a!.rps.toFixed(0)}/s p99 ${a!.p99.toFixed(1)} ms (errors ${a!.errors}); page 1 ${b!.rps.toFixed(0)}/s p99 ${b!.p99.toFixed(1)} ms; ratio ${ratios.at(-1)!.toFixed(3)}`);
  }
  const ratio = median(ratios);
  log(`RESULT ${row.id} (${row.query || 'no filter'}; ${row.matches}; ${total} matches): ${median(figures).toFixed(0)} req/s, ${(ratio * 100).toFixed(0)} % of page 1 ${ratio >= DEEP_PAGE_MIN_RATIO ? 'met' : 'MISSED'} (target ${DEEP_PAGE_TARGET})`);
}

/**
 * Every user at page_size 100, one request after the other, as a sync job walks: by page number, or by cursor (the
 * `Link` header's rel="next"). `pages` counts the requests, `total` is the first page's total_document.
 */
export async function walkUsers(apiUrl: string, token: string, by: 'page' | 'cursor'): Promise<{ seen: number; total: number; pages: number; seconds: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const started = performance.now();
  let seen = 0;
  let total = 0;
  let page = 1;
  try {
    let target: string | undefined = '/v1/users?page_size=100';
    for (; target; page++) {
      const answer = await getJson(agent, `${apiUrl}${target}`, token);
      if (answer.status !== 200) throw new Error(`${target}: ${answer.status}`);
      if (page === 1) total = answer.body.pagination.total_document;
      seen += answer.body.users.length;
      if (by === 'cursor') target = /^<([^>]+)>/.exec(answer.link ?? '')?.[1];
      else target = answer.body.users.length === 0 || page >= answer.body.pagination.page_count ? undefined : `/v1/users?page_size=100&page=${page + 1}`;
      if (page % 2000 === 0) log(`walk by ${by}: ${seen} users, ${((performance.now() - started) / 1000).toFixed(1)} s`);
    }
  } finally {
    agent.destroy();
  }
  return { seen, total, pages: page - 1, seconds: (performance.now() - started) / 1000 };
}

async function walk(apiUrl: string, token: string, by: 'page' | 'cursor'): Promise<void> {
  const { seen, seconds } = await walkUsers(apiUrl, token, by);
  log(`RESULT walk-${by}: ${seen} users at page_size 100 in ${seconds.toFixed(1)} s (${(seen / 100 / seconds).toFixed(0)} pages/s) ${seconds < WALK_MAX_SECONDS ? 'met' : 'MISSED'} (target < ${WALK_MAX_SECONDS} s)`);
}

async function runPageRows(): Promise<void> {
  const users = Number(process.env.BENCH_PAGES_USERS ?? 1_000_000);
  const only = (process.env.BENCH_PAGES_ONLY ?? '').split(',').map((w) => w.trim()).filter(Boolean);
  const wanted = (id: string) => only.length === 0 || only.some((w) => id === w || id.startsWith(`${w}-`));
  const { api, databaseUrl, stop } = await standaloneApi('pages', { given: process.env.BENCH_PAGES_DATABASE_URL, keep: process.env.BENCH_PAGES_KEEP === '1', label: 'api@big' });
  try {
    await seededOnce(databaseUrl, users);
    const sizes = poolNote(await poolAgainstUsers(databaseUrl));
    if (sizes) log(sizes);
    const token = await signInToken(api.url, BENCH_ADMIN);
    for (const row of pageRows(users)) if (wanted(row.id)) await randomRow(api.url, token, row);
    for (const by of ['page', 'cursor'] as const) if (wanted(`walk-${by}`)) await walk(api.url, token, by);
  } finally {
    await stop();
  }
}

if (require.main === module) runStandalone(runPageRows);
