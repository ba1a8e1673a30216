/**
 * Gives the tests a MySQL 8 server beside the MariaDB one of database-server.ts, so the persistence
 * suite and the HTTP suites run on both engines. In this order of preference:
 *  1. MYSQL_DATABASE_URL (mysql://…) from the environment, used as is;
 *  2. a local MySQL 8 run from a Maven Central artifact (local-mysql.ts);
 *  3. otherwise an Error that says what is missing.
 */
import { createConnection } from 'mysql2/promise';
import { LocalMySqlServer, MYSQL_ARTIFACT, MYSQL_VERSION } from './local-mysql';

export interface MySqlServerHandle {
  /** URL of an admin connection (a user that may create databases) to a database that exists. */
  url: string;
  source: 'env' | 'local';
  /** What the server says it is (SELECT VERSION()). */
  version: string;
  stop(): Promise<void>;
}

export async function provideMySqlServer(): Promise<MySqlServerHandle> {
  const fromEnv = process.env.MYSQL_DATABASE_URL;
  if (fromEnv) {
    if (!fromEnv.startsWith('mysql://')) throw new Error('MYSQL_DATABASE_URL for the tests must be mysql://user:pass@host:port/db');
    const version = await versionOf(fromEnv);
    // mysql:// makes the service speak MySQL's dialect, which a MariaDB does not parse everywhere.
    if (/mariadb/i.test(version)) throw new Error(`MYSQL_DATABASE_URL must name a MySQL 8 server; it answers as ${version}`);
    return { url: fromEnv, source: 'env', version, stop: async () => undefined };
  }
  try {
    const server = await LocalMySqlServer.start();
    return { url: server.url, source: 'local', version: server.version, stop: () => server.stop() };
  } catch (error) {
    throw new Error(
      `No MySQL 8 for the tests: MYSQL_DATABASE_URL is not set, and a local MySQL ${MYSQL_VERSION} (Maven Central ${MYSQL_ARTIFACT}, ` +
        `run with mvn on Linux x86_64) did not start: ${error instanceof Error ? error.message : String(error)}\n` +
        'Set MYSQL_DATABASE_URL=mysql://user:pass@host:port/db (a user that may create databases), or make mvn and Maven Central available.',
    );
  }
}

async function versionOf(url: string): Promise<string> {
  const server = new URL(url);
  try {
    const connection = await createConnection({
      host: server.hostname,
      port: Number(server.port || 3306),
      user: decodeURIComponent(server.username || 'root'),
      password: decodeURIComponent(server.password),
      connectTimeout: 10_000,
    });
    try {
      const [rows] = await connection.query('SELECT VERSION() AS version');
      return String((rows as { version: string }[])[0].version);
    } finally {
      await connection.end();
    }
  } catch (error) {
    throw new Error(`MYSQL_DATABASE_URL (${server.host}) does not answer: ${error instanceof Error ? error.message : String(error)}`);
  }
}
