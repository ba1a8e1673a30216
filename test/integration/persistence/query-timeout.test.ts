import type { DataSource } from 'typeorm';
import { closeDataSource, createDataSource } from '../../../src/infrastructure/persistence/typeorm/data-source';
import { runMigrations } from '../../../src/infrastructure/persistence/typeorm/migrate';
import { CuttableProxy } from '../../support/cuttable-proxy';
import { connectTo, createTestDatabase, mysqlServerUrl, serverUrl, type TestDatabase } from '../../support/test-database';

/**
 * DATABASE_QUERY_TIMEOUT on MariaDB and MySQL 8: a statement unanswered that long fails, and its connection leaves the
 * pool (mysql2 keeps it, its command still waiting, and every later statement on it would wait too); the migrations,
 * whose lock may wait for another replica's, run without it.
 */
describe.each([
  ['MariaDB', serverUrl],
  ['MySQL 8', mysqlServerUrl],
])('query timeout on %s', (_name, server) => {
  let database: TestDatabase;
  let dataSource: DataSource;

  beforeAll(async () => {
    database = await createTestDatabase('ac_query_timeout', server());
    // One connection: a timed-out one handed out again would make the next statement wait behind it.
    dataSource = createDataSource(database.config, { queryTimeoutMs: 1_000, poolSize: 1 });
    await dataSource.initialize();
  });
  afterAll(async () => {
    if (dataSource?.isInitialized) await dataSource.destroy();
    await database?.drop();
  });

  it('fails a statement unanswered past the timeout, and the next one runs at once on a new connection', async () => {
    const [{ id: before }] = (await dataSource.query('SELECT CONNECTION_ID() AS id')) as { id: number }[];
    const started = Date.now();
    const failure = await dataSource.query('SELECT SLEEP(3)').then(
      () => null,
      (error: { driverError?: { code?: string } }) => error.driverError?.code,
    );
    expect(failure).toBe('PROTOCOL_SEQUENCE_TIMEOUT');
    expect(Date.now() - started).toBeLessThan(2_000);
    const next = Date.now();
    const [{ id: after }] = (await dataSource.query('SELECT CONNECTION_ID() AS id')) as { id: number }[];
    // Not behind the sleep still running on the old connection (about 2 s more), and not on it.
    expect(Date.now() - next).toBeLessThan(800);
    expect(after).not.toBe(before);
  });

  it('stops the timed-out statement on the server too: an update waiting on a lock does not wait on after its failure (review of 2026-12-07)', async () => {
    const holder = await connectTo(database.url);
    try {
      await holder.query('CREATE TABLE IF NOT EXISTS timeout_probe (id INT PRIMARY KEY, v INT)');
      await holder.query('REPLACE INTO timeout_probe VALUES (1, 0)');
      await holder.query('BEGIN');
      await holder.query('UPDATE timeout_probe SET v = 1 WHERE id = 1');
      const failure = await dataSource.query('UPDATE timeout_probe SET v = 2 WHERE id = 1').then(
        () => null,
        (error: { driverError?: { code?: string } }) => error.driverError?.code,
      );
      expect(failure).toBe('PROTOCOL_SEQUENCE_TIMEOUT');
      const waiting = async () =>
        Number(((await holder.query("SELECT COUNT(*) AS n FROM information_schema.processlist WHERE info LIKE 'UPDATE timeout_probe SET v = 2%'")) as unknown as [{ n: number }[]])[0][0]!.n);
      const until = Date.now() + 2_000;
      while ((await waiting()) > 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
      // Without the kill it waits on for innodb_lock_wait_timeout (50 s by default), holding what it locked.
      expect(await waiting()).toBe(0);
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await holder.end();
    }
  });

  it('closes at shutdown while a new connection’s handshake goes unanswered (the database silent): it does not fail for it', async () => {
    const { proxy, database: proxied } = await CuttableProxy.before(database);
    const silent = createDataSource(proxied.config, { queryTimeoutMs: 1_000, poolSize: 2 });
    try {
      await silent.initialize();
      proxy.blackhole();
      // The idle connection takes the first statement, the second opens a connection whose handshake gets no answer.
      const statements = [silent.query('SELECT 1'), silent.query('SELECT 2')].map((p) => p.catch((error: unknown) => error));
      await new Promise((resolve) => setTimeout(resolve, 200));
      await expect(closeDataSource(silent)).resolves.toBeUndefined();
      await Promise.all(statements);
    } finally {
      await proxy.close();
    }
  });

  it('runs the migrations without it: their lock waits for another holder longer than the timeout', async () => {
    const holder = await connectTo(database.url);
    // The pool's size as the service has it: the migrations hold one connection for the lock and use others.
    const migrating = createDataSource(database.config, { queryTimeoutMs: 1_000 });
    await migrating.initialize();
    try {
      await holder.query("SELECT GET_LOCK('access_control_schema_migrations', 5)");
      setTimeout(() => void holder.query("SELECT RELEASE_LOCK('access_control_schema_migrations')"), 2_500);
      const started = Date.now();
      await expect(runMigrations(migrating)).resolves.toEqual(expect.any(Array));
      expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
      // And statements are bounded again afterwards.
      await expect(migrating.query('SELECT SLEEP(2)')).rejects.toMatchObject({ driverError: { code: 'PROTOCOL_SEQUENCE_TIMEOUT' } });
    } finally {
      await migrating.destroy();
      await holder.end();
    }
  });
});
