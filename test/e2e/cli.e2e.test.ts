import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { startTestApp } from '../support/test-app';

const ROOT = path.resolve(__dirname, '../..');
const CLI = path.join(ROOT, 'dist/src/interfaces/cli/main.js');
const MIGRATE = path.join(ROOT, 'dist/src/interfaces/cli/migrate.js');

/** The built command-line tools, as a platform team runs them (a migration Job, an admin created by hand). */
describe('command line', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    if (!existsSync(CLI)) execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
    db = await createTestDatabase();
  });
  afterAll(async () => db.drop());

  const run = (script: string, args: string[], input?: string, env: Record<string, string> = {}) =>
    spawnSync(process.execPath, [script, ...args], {
      input,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: db.url, LOG_LEVEL: 'warn', ...env },
      timeout: 60_000,
    });

  it('migrate applies the migrations once, then finds the schema up to date', () => {
    const first = run(MIGRATE, []);
    expect(first.status).toBe(0);
    expect(first.stdout).toMatch(/^applied: InitialSchema/);
    const second = run(MIGRATE, []);
    expect(second.status).toBe(0);
    expect(second.stdout).toBe('schema is up to date\n');
  });

  it('create-admin reads the password from standard input, never the command line, and creates a joined admin once', async () => {
    const created = run(CLI, ['create-admin', '--username', 'ops.admin', '--email', 'ops@example.com', '--name', 'Ops Admin'], 'ops-admin-password\n');
    expect(created.stderr).toBe('');
    expect(created.status).toBe(0);
    expect(created.stdout).toBe('admin ops.admin created\n');

    // The password may come from ADMIN_PASSWORD alone, as the usage says: not half of a bootstrap group.
    const fromEnv = run(CLI, ['create-admin', '--username', 'env.admin', '--email', 'env@example.com'], undefined, { ADMIN_PASSWORD: 'env-admin-password' });
    expect([fromEnv.status, fromEnv.stderr, fromEnv.stdout]).toEqual([0, '', 'admin env.admin created\n']);

    const again = run(CLI, ['create-admin', '--username', 'OPS.ADMIN', '--email', 'other@example.com'], 'another-password-1\n');
    expect(again.status).toBe(1);
    expect(again.stdout).toMatch(/exists already; nothing changed/);

    const app = await startTestApp({}, {}, db);
    try {
      const signIn = await app.request('POST', '/v1/auth/signin', { json: { username: 'ops.admin', password: 'ops-admin-password' } });
      expect(signIn.status).toBe(200);
      expect(signIn.body).toMatchObject({ name: 'Ops Admin', role: { name: 'admin' } });
      const refused = await app.request('POST', '/v1/auth/signin', { json: { username: 'ops.admin', password: 'another-password-1' } });
      expect(refused.status).toBe(401);
    } finally {
      await app.api.close();
    }
  });

  it('refuses a weak password or a bad address with a message naming the field, and usage errors with exit 2', () => {
    const weak = run(CLI, ['create-admin', '--username', 'weak.admin', '--email', 'weak@example.com'], 'short\n');
    expect(weak.status).toBe(1);
    expect(weak.stderr).toMatch(/ADMIN_PASSWORD: must be 12 to 128 characters/);
    expect(weak.stderr).not.toContain('short');
    const badEmail = run(CLI, ['create-admin', '--username', 'bad.admin', '--email', 'nope'], 'long-enough-password\n');
    expect(badEmail.status).toBe(1);
    expect(badEmail.stderr).toMatch(/ADMIN_EMAIL/);
    expect(run(CLI, ['create-admin', '--username', 'x']).status).toBe(2);
    expect(run(CLI, ['frobnicate']).status).toBe(2);
  });

  it('stops with a message naming the variable when the configuration is bad', () => {
    const result = run(MIGRATE, [], undefined, { DATABASE_URL: 'postgres://somewhere/db', PORT: 'eighty' });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/DATABASE_URL/);
    expect(result.stderr).toMatch(/PORT/);
  });
});
