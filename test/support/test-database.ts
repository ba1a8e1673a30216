import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Connection, createConnection } from 'mysql2/promise';
import type { DatabaseConfig } from '../../src/infrastructure/config/config';

/**
 * A database of its own for one test file, on the server the global setup found, so test
 * files run in parallel without seeing each other's rows. Dropped by `drop()`.
 */
export interface TestDatabase {
  url: string;
  config: DatabaseConfig;
  drop(): Promise<void>;
}

export function serverUrl(): string {
  const url = process.env.TEST_DATABASE_SERVER_URL;
  if (!url) throw new Error('TEST_DATABASE_SERVER_URL is not set: run the integration tests through jest (global setup)');
  return url;
}

/** The MySQL 8 server the global setup found or started, beside the one of serverUrl(). */
export function mysqlServerUrl(): string {
  const url = process.env.TEST_MYSQL_SERVER_URL;
  if (!url) throw new Error('TEST_MYSQL_SERVER_URL is not set: run the integration tests through jest (global setup)');
  return url;
}

/**
 * The "server" of the `e2e-sqlite` jest project: every test database is then a SQLite file of its own,
 * as `make run`'s embedded default keeps it (one connection, so the write queue's rules hold).
 */
export const SQLITE_SERVER = 'sqlite:';

function createSqliteDatabase(prefix: string): TestDatabase {
  const dir = mkdtempSync(path.join(os.tmpdir(), `${prefix}-sqlite-`));
  const file = path.join(dir, 'access-control.sqlite');
  return {
    url: `sqlite:${file}`,
    config: { kind: 'sqlite', path: file },
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A database of its own on `onServer` (an admin URL; by default the server of serverUrl()). */
export async function createTestDatabase(prefix = 'ac_test', onServer: string = serverUrl()): Promise<TestDatabase> {
  if (onServer === SQLITE_SERVER) return createSqliteDatabase(prefix);
  const server = new URL(onServer);
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  await admin(server, `CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  const url = new URL(server.href);
  url.pathname = `/${name}`;
  const kind = url.protocol === 'mariadb:' ? 'mariadb' : 'mysql';
  return {
    url: url.href,
    config: { kind, url: url.href },
    drop: () => admin(server, `DROP DATABASE IF EXISTS \`${name}\``),
  };
}

/**
 * A plain mysql2 connection to the database a `mysql://` or `mariadb://` URL names (none: the server
 * alone), in UTC, for what a test or the bench does behind the service's back.
 */
export function connectTo(databaseUrl: string | URL): Promise<Connection> {
  const url = new URL(databaseUrl);
  return createConnection({
    host: url.hostname,
    port: Number(url.port || 3306),
    user: decodeURIComponent(url.username || 'root'),
    password: decodeURIComponent(url.password),
    ...(url.pathname.length > 1 ? { database: url.pathname.slice(1) } : {}),
    timezone: 'Z',
  });
}

async function admin(server: URL, sql: string): Promise<void> {
  const connection = await connectTo(server);
  try {
    await connection.query(sql);
  } finally {
    await connection.end();
  }
}
