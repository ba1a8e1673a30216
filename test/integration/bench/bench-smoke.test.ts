/**
 * The benchmark harness at toy size (BENCH_SMOKE=1: a few hundred users, 1 s per run): it must
 * produce every row with numbers, and the capacity section (per-operation CPU, memory, table sizes)
 * that docs/SCALING.md is computed from. It asserts nothing about speed or cost.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

jest.setTimeout(600_000);

const ROOT = path.resolve(__dirname, '../../..');
const CAPACITY_OPERATIONS = ['sign-in', 'refresh', 'users-list', 'invite', 'mail'];
const CAPACITY_TABLES = ['users', 'outbox_events', 'invitations', 'processed_events'];
const FILTER_ROWS = ['users-filter-role', 'users-filter-status', 'users-filter-email', 'users-filter-q', 'users-filter-wide'];
const OAUTH_ROWS = ['client-credentials-secret', 'client-credentials-key', 'introspect'];
// The admin console's budgets (#25), measured in Chromium against the largest service.
const CONSOLE_ROWS = ['console-bundle', 'console-first-screen', 'console-users-page'];
const AUDIT_ROWS = ['audit-signin', 'audit-target', 'audit-group', 'audit-deep-cursor'];
// Each filter's deep pages against its own page 1 (the wide `q` prefix's alone only, bench/pages.ts), and the walks of every user (#26).
const DEEP_PAGE_ROWS = ['random-role', 'random-status', 'random-wide', 'random-role-status', 'random-email', 'random-q', 'random-q-wide'];
const WALK_ROWS = ['walk-page', 'walk-cursor'];
const ROWS = ['sign-in', 'refresh', 'mfa-sign-in', 'users-vs-bare', 'users-vs-noauth', 'users-1m-vs-10k', 'random-page', ...DEEP_PAGE_ROWS, ...WALK_ROWS, ...CONSOLE_ROWS, ...FILTER_ROWS, 'permissions', 'invite', 'password-reset', 'invite-kafka-p99', 'invite-smtp-p99', 'eld', 'rss'];

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
    for (const id of ['sign-in', 'refresh', 'mfa-sign-in', 'users-vs-bare', 'users-vs-noauth', 'users-1m-vs-10k', 'random-page', ...DEEP_PAGE_ROWS, ...FILTER_ROWS, 'permissions', 'invite', 'password-reset']) {
      const row = results.rows.find((r) => r.id === id)!;
      expect(Number.isFinite(row.ratio)).toBe(true);
      expect(Number.isFinite(row.baselineFigure)).toBe(true);
    }
  });

  it('walks every user, by page and by cursor (#26)', () => {
    const results = JSON.parse(readFileSync(path.join(outDir, 'results.json'), 'utf8')) as { rows: { id: string; note?: string }[] };
    for (const id of WALK_ROWS) expect(results.rows.find((r) => r.id === id)?.note).toMatch(/ (\d+) users seen of \1$/);
  });

  it("writes the OAuth (#21) and audit trail (#23) rows in tables of their own, each a ratio against its baseline", () => {
    type Rows = { id: string; figure: number | null; ratio: number | null; baselineFigure: number | null }[];
    const results = JSON.parse(readFileSync(path.join(outDir, 'results.json'), 'utf8')) as { oauthRows: Rows; auditRows: Rows };
    expect(results.oauthRows.map((row) => row.id)).toEqual(OAUTH_ROWS);
    expect(results.auditRows.map((row) => row.id)).toEqual(AUDIT_ROWS);
    for (const row of [...results.oauthRows, ...results.auditRows]) {
      for (const value of [row.figure, row.ratio, row.baselineFigure]) expect(Number.isFinite(value)).toBe(true);
    }
  });

  it('writes the capacity section of results.json', () => {
    const { capacity } = JSON.parse(readFileSync(path.join(outDir, 'results.json'), 'utf8')) as {
      capacity: {
        command: string;
        databaseCpu: { measured: boolean; detail: string };
        operations: { id: string; count: number; cpuSeconds: number; cpuMsPerOp: number; opsPerCoreSecond: number; dbCpuMsPerOp: number | null; peakRssMB: number }[];
        memory: Record<string, number>;
        smtpLatency: { mails: number; mailsPerSecond: number; peakSmtpInFlight: number };
        tables: { table: string; rows: number; bytesPerRow: number | null }[];
        userTotalRecount: { users: number; seconds: number };
      };
    };
    expect(capacity.command).toBe('npm run bench');
    expect(capacity.operations.map((o) => o.id)).toEqual(CAPACITY_OPERATIONS);
    for (const o of capacity.operations) {
      expect(o.count).toBeGreaterThan(0);
      for (const value of [o.cpuSeconds, o.cpuMsPerOp, o.opsPerCoreSecond, o.peakRssMB]) expect(Number.isFinite(value)).toBe(true);
      // The database's CPU is a number when its process is on this machine, and said to be unmeasured otherwise.
      if (capacity.databaseCpu.measured) expect(Number.isFinite(o.dbCpuMsPerOp)).toBe(true);
      else expect(o.dbCpuMsPerOp).toBeNull();
    }
    expect(capacity.databaseCpu.detail).not.toBe('');
    for (const key of ['apiRssAtRestMB', 'apiRssAfterLoadMB', 'apiPeakRssMB', 'mailerRssAtRestMB', 'mailerPeakRssMB']) expect(Number.isFinite(capacity.memory[key])).toBe(true);
    expect(capacity.smtpLatency.mails).toBeGreaterThan(1);
    expect(Number.isFinite(capacity.smtpLatency.mailsPerSecond)).toBe(true);
    expect(capacity.tables.map((t) => t.table)).toEqual(CAPACITY_TABLES);
    for (const t of capacity.tables) {
      expect(t.rows).toBeGreaterThan(0);
      expect(Number.isFinite(t.bytesPerRow)).toBe(true);
    }
    expect(capacity.userTotalRecount.users).toBeGreaterThan(0);
    expect(Number.isFinite(capacity.userTotalRecount.seconds)).toBe(true);
  });

  it('writes the table and the capacity tables into BENCHMARKS.md', () => {
    const markdown = readFileSync(path.join(outDir, 'BENCHMARKS.md'), 'utf8');
    const block = (name: string) => markdown.slice(markdown.indexOf(`<!-- bench:${name}:start -->`), markdown.indexOf(`<!-- bench:${name}:end -->`));
    const bodyRows = (text: string) => text.match(/^\| (?!scenario|operation|table|---)/gm)?.length;
    expect(block('results')).toContain('| scenario | baseline | figure |');
    expect(bodyRows(block('results'))).toBe(ROWS.length);
    expect(bodyRows(block('oauth'))).toBe(OAUTH_ROWS.length);
    expect(bodyRows(block('audit'))).toBe(AUDIT_ROWS.length);
    const capacity = block('capacity');
    expect(capacity).toContain('| operation (`capacity.operations[].id`) |');
    for (const id of CAPACITY_OPERATIONS) expect(capacity).toContain(`(\`${id}\`) |`);
    expect(bodyRows(capacity)).toBe(CAPACITY_OPERATIONS.length + CAPACITY_TABLES.length);
  });
});
