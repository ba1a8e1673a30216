/**
 * The benchmark harness at toy size (BENCH_SMOKE=1: a few hundred users, 1 s per run): it must
 * produce every row with numbers. It asserts nothing about speed.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

jest.setTimeout(600_000);

const ROOT = path.resolve(__dirname, '../../..');
const ROWS = ['sign-in', 'users-vs-bare', 'users-vs-noauth', 'users-1m-vs-10k', 'last-page-p99', 'permissions', 'invite', 'invite-kafka-p99', 'invite-smtp-p99', 'eld', 'rss'];

describe('npm run bench, smoke size', () => {
  let outDir: string;

  beforeAll(() => {
    outDir = mkdtempSync(path.join(os.tmpdir(), 'ac-bench-smoke-'));
    execFileSync('npx', ['tsc', '-p', 'tsconfig.bench.json'], { cwd: ROOT, stdio: 'inherit' });
    execFileSync(process.execPath, [path.join(ROOT, 'dist-bench/bench/run.js')], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, BENCH_SMOKE: '1', BENCH_OUT_DIR: outDir },
      timeout: 540_000,
    });
  });

  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it('writes every row of results.json with numbers', () => {
    const results = JSON.parse(readFileSync(path.join(outDir, 'results.json'), 'utf8')) as {
      meta: { smoke: boolean };
      rows: { id: string; figure: number | null; p99Ms: number | null; ratio: number | null; baselineFigure: number | null }[];
    };
    expect(results.meta.smoke).toBe(true);
    expect(results.rows.map((row) => row.id)).toEqual(ROWS);
    for (const row of results.rows) {
      expect(typeof row.figure).toBe('number');
      expect(Number.isFinite(row.figure)).toBe(true);
    }
    for (const id of ['sign-in', 'users-vs-bare', 'users-vs-noauth', 'users-1m-vs-10k', 'last-page-p99', 'permissions', 'invite']) {
      const row = results.rows.find((r) => r.id === id)!;
      expect(Number.isFinite(row.ratio)).toBe(true);
      expect(Number.isFinite(row.baselineFigure)).toBe(true);
    }
  });

  it('writes the table into BENCHMARKS.md', () => {
    const markdown = readFileSync(path.join(outDir, 'BENCHMARKS.md'), 'utf8');
    expect(markdown).toContain('| scenario | baseline | figure |');
    expect(markdown.match(/^\| (?!scenario|---)/gm)?.length).toBe(ROWS.length);
  });
});
