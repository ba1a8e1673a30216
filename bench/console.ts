/**
 * The admin console's budgets (#25), measured in Chromium against a running api (`npm run bench` runs it on the
 * database with the most users):
 *   - the first screen's JS + CSS, gzipped (what the page loads before it can show anything): ≤ 150 KB;
 *   - the first screen rendered (the console's `console:first-screen` mark, from the navigation's start), on
 *     loopback with a cold cache: ≤ 1 s (the median of a few loads);
 *   - the users screen at that size: one request per page change, and a page change (click to rows) as quick as
 *     the API's page plus the rendering.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { launchChromium } from '../test/support/headless-chromium';
import { median } from './load';
import { ROOT } from './processes';
import type { Row } from './report';

const BUNDLE_BUDGET_KB = 150;
const FIRST_SCREEN_BUDGET_MS = 1000;

const row = (fields: Omit<Row, 'baselineFigure' | 'ratio' | 'p50Ms' | 'p99Ms' | 'baseline'> & Partial<Row>): Row => ({
  baseline: '—',
  baselineFigure: null,
  ratio: null,
  p50Ms: null,
  p99Ms: null,
  ...fields,
});

/** The gzipped size of what the page names: its stylesheet and its script (the whole console is one bundle). */
export function firstScreenBytes(consoleDir = path.join(ROOT, 'dist', 'console')): number {
  const page = readFileSync(path.join(consoleDir, 'index.html'), 'utf8');
  const assets = [...page.matchAll(/\/console\/assets\/([A-Za-z0-9._-]+\.(?:js|css))/g)].map((match) => match[1]!);
  if (assets.length < 2) throw new Error(`dist/console/index.html names no script and stylesheet: ${assets.join(', ')}`);
  return assets.reduce((sum, name) => sum + gzipSync(readFileSync(path.join(consoleDir, 'assets', name)), { level: 9 }).length, 0);
}

export async function consoleRows(options: { url: string; admin: { username: string; password: string }; users: number; loads?: number }): Promise<Row[]> {
  const bytes = firstScreenBytes();
  const browser = await launchChromium();
  try {
    const firstScreen: number[] = [];
    for (let n = 0; n < (options.loads ?? 5); n++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${options.url}/console`);
      await page.waitForFunction(() => performance.getEntriesByName('console:first-screen').length > 0);
      firstScreen.push(await page.evaluate(() => performance.getEntriesByName('console:first-screen')[0]!.startTime));
      await context.close();
    }

    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${options.url}/console`);
    await page.getByLabel('Username').fill(options.admin.username);
    await page.getByLabel('Password').fill(options.admin.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText(/^Page 1 of/).waitFor();
    let requests = 0;
    page.on('request', (sent) => {
      if (sent.url().includes('/v1/users?')) requests++;
    });
    const changes: number[] = [];
    const pages = 10;
    for (let n = 2; n <= pages + 1; n++) {
      const started = Date.now();
      await page.getByRole('button', { name: 'Next page' }).click();
      await page.getByText(new RegExp(`^Page ${n} of`)).waitFor();
      await page.locator('table[aria-busy="false"]').waitFor();
      changes.push(Date.now() - started);
    }
    await context.close();

    return [
      row({ id: 'console-bundle', scenario: 'the console’s first screen: JS + CSS, gzipped', figure: bytes / 1024, unit: 'KB', target: `≤ ${BUNDLE_BUDGET_KB} KB`, met: bytes / 1024 <= BUNDLE_BUDGET_KB }),
      row({
        id: 'console-first-screen',
        scenario: 'the console’s first screen rendered in Chromium on loopback, cold cache (navigation start to the first screen’s mark)',
        figure: median(firstScreen),
        unit: 'ms',
        target: `≤ ${FIRST_SCREEN_BUDGET_MS} ms`,
        met: median(firstScreen) <= FIRST_SCREEN_BUDGET_MS,
        note: `median of ${firstScreen.length} loads: ${firstScreen.map((ms) => ms.toFixed(0)).join(', ')} ms`,
      }),
      row({
        id: 'console-users-page',
        scenario: `the console’s users screen at ${options.users} users: Next page clicked to the new rows shown`,
        figure: median(changes),
        unit: 'ms',
        target: 'one request per page change',
        met: requests === pages,
        p99Ms: Math.max(...changes),
        note: `${requests} GET /v1/users for ${pages} page changes; slowest ${Math.max(...changes)} ms`,
      }),
    ];
  } finally {
    await browser.close();
  }
}
