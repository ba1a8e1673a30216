/**
 * The migrate step and the api started before their database (podman-compose starts them without
 * waiting for its health): both wait for it, then do their work.
 *
 * The api started beside the migrate step, as a Deployment beside its Job (or compose, whose
 * podman-compose does not await the one-shot): with MIGRATE_ON_START=false and the tables not there
 * yet, it waits for the migrate step instead of exiting, then bootstraps the admin and serves.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { ensureBuilt, startApiProcess } from '../support/api-process';
import { CuttableProxy } from '../support/cuttable-proxy';
import { connectTo, createTestDatabase, type TestDatabase } from '../support/test-database';

jest.setTimeout(120_000);

const MIGRATE = path.resolve(__dirname, '../../dist/src/interfaces/cli/migrate.js');
const ADMIN = { ADMIN_USERNAME: 'step.admin', ADMIN_EMAIL: 'step.admin@example.com', ADMIN_PASSWORD: 'step-admin-password' };

let db: TestDatabase;
beforeAll(async () => {
  ensureBuilt();
  db = await createTestDatabase('ac_migrate_step');
});
afterAll(async () => db?.drop());

/** Resolves once some connection of the server sits in `database` (the api connected, before it migrates or listens). */
async function connectedTo(database: string, timeoutMs: number): Promise<void> {
  const connection = await connectTo(db.url);
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const [rows] = await connection.query('SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE DB = ? AND ID <> CONNECTION_ID()', [database]);
      if (Number((rows as { n: number }[])[0]!.n) > 0) return;
      if (Date.now() > deadline) throw new Error(`no connection to ${database} within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await connection.end();
  }
}

it('waits for the migrate step when MIGRATE_ON_START=false, then bootstraps the admin and serves', async () => {
  const database = new URL(db.url).pathname.slice(1);
  // Its start includes the migrate step below, which a busy machine runs in tens of seconds.
  const starting = startApiProcess(
    'migrate-step',
    { DATABASE_URL: db.url, MIGRATE_ON_START: 'false', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...ADMIN },
    { readyWithinMs: 90_000 },
  );
  starting.catch(() => undefined); // awaited below; an exit before the migrate step fails it there
  await connectedTo(database, 30_000);

  // The migrate step runs only now, after the api has found the schema missing.
  await promisify(execFile)(process.execPath, [MIGRATE], { env: { PATH: process.env.PATH ?? '', DATABASE_URL: db.url } });

  const api = await starting;
  try {
    expect(api.output.join('')).toMatch(/migrations are pending: waiting for the migrate step/);
    const base = `http://127.0.0.1:${api.port}`;
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    const signIn = await fetch(`${base}/v1/auth/signin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: ADMIN.ADMIN_USERNAME, password: ADMIN.ADMIN_PASSWORD }),
    });
    expect(signIn.status).toBe(200);
  } finally {
    api.child.kill('SIGTERM');
    expect(await api.exited).toBe(0);
  }
});

/** How many migrations the database behind `url` has recorded (0 when the table is not there). */
async function appliedMigrations(url: string): Promise<number> {
  const connection = await connectTo(url);
  try {
    const [rows] = await connection.query("SELECT COUNT(*) AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'schema_migrations'");
    if (Number((rows as { n: number }[])[0]!.n) === 0) return 0;
    const [applied] = await connection.query('SELECT COUNT(*) AS n FROM schema_migrations');
    return Number((applied as { n: number }[])[0]!.n);
  } finally {
    await connection.end();
  }
}

it('the migrate step and the api started before their database wait for it: neither exits, both finish their work', async () => {
  const late = await createTestDatabase('ac_late_database');
  const { proxy, database } = await CuttableProxy.before(late);
  proxy.cut(); // the database "is not up yet": every connection is refused
  try {
    const migrate = execFile(process.execPath, [MIGRATE], { env: { PATH: process.env.PATH ?? '', DATABASE_URL: database.url } });
    let migrateLog = '';
    migrate.stdout!.on('data', (chunk: Buffer) => (migrateLog += chunk.toString()));
    migrate.stderr!.on('data', (chunk: Buffer) => (migrateLog += chunk.toString()));
    const migrateExit = new Promise<number | null>((resolve) => migrate.once('exit', resolve));
    // Its start includes the wait for the database and the migrate step.
    const api = startApiProcess(
      'late-database',
      { DATABASE_URL: database.url, MIGRATE_ON_START: 'false', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...ADMIN },
      { readyWithinMs: 90_000 },
    );
    api.catch(() => undefined); // awaited below

    // Its first refused attempt, however long the process takes to start on a loaded machine (it had not logged
    // one 4 s after its start in CI once), then long enough for several more (500 ms, 1 s, 2 s backoff). Before the
    // fix both processes exited 0 here: the retry wait did not keep the event loop alive, and nothing else did.
    const exited = migrateExit.then((code) => `migrate exited with ${code}`);
    const firstRefusal = (async () => {
      for (let waited = 0; waited < 60_000 && !/database not reachable yet/.test(migrateLog); waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
      await new Promise((resolve) => setTimeout(resolve, 4_000));
      return 'still waiting';
    })();
    expect(await Promise.race([exited, firstRefusal])).toBe('still waiting');
    expect(migrateLog).toMatch(/database not reachable yet/);
    expect(await appliedMigrations(late.url)).toBe(0);

    proxy.restore(); // the database is up
    expect(await migrateExit).toBe(0);
    expect(await appliedMigrations(late.url)).toBeGreaterThan(0);
    const started = await api;
    try {
      expect((await fetch(`http://127.0.0.1:${started.port}/readyz`)).status).toBe(200);
    } finally {
      started.child.kill('SIGTERM');
      expect(await started.exited).toBe(0);
    }
  } finally {
    await proxy.close();
    await late.drop();
  }
});
