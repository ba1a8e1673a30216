import type { DataSource } from 'typeorm';
import { ConfigError } from '../../config/config';

/**
 * The oldest MySQL and MariaDB servers whose SQL dialect has everything the service writes. An older
 * server accepts the connection and the migrations, and then refuses statements one by one (on
 * MySQL 8.0.15 every invitation mail failed), so the start refuses it instead, naming both versions.
 *
 * - MySQL 8.0.19: the row alias of `INSERT … AS new ON DUPLICATE KEY UPDATE` (single-use-token-rows.ts;
 *   VALUES() there is deprecated since 8.0.20). `FOR UPDATE SKIP LOCKED` (8.0.1) and window functions
 *   (`COUNT(*) OVER ()`, 8.0.2) come before it.
 * - MariaDB 10.6: `FOR UPDATE SKIP LOCKED` (the outbox relay's claim, outbox-claims.ts); window
 *   functions are there since 10.2. MariaDB has no row alias at all, so `mysql://` on a MariaDB is refused too.
 */
export const MINIMUM_SERVER_VERSIONS = {
  MySQL: { version: [8, 0, 19], shown: '8.0.19', why: 'INSERT … AS new ON DUPLICATE KEY UPDATE, a row alias MySQL has since 8.0.19' },
  MariaDB: { version: [10, 6, 0], shown: '10.6', why: 'SELECT … FOR UPDATE SKIP LOCKED, which MariaDB has since 10.6' },
} as const satisfies Record<string, { version: readonly [number, number, number]; shown: string; why: string }>;

export type ServerProduct = keyof typeof MINIMUM_SERVER_VERSIONS;

export interface ServerVersion {
  product: ServerProduct;
  /** major, minor, patch */
  version: [number, number, number];
  /** As the server said it (SELECT VERSION()), e.g. "8.0.31" or "10.11.19-MariaDB-0+deb12u1". */
  text: string;
}

/**
 * What `SELECT VERSION()` answers, read: "8.0.31", "8.0.15-log", "10.11.19-MariaDB-0+deb12u1",
 * "5.5.5-10.6.4-MariaDB" (the prefix old clients were given). Null when it is none of these.
 */
export function parseServerVersion(text: string): ServerVersion | null {
  const mariadb = /mariadb/i.test(text);
  const match = /^(?:5\.5\.5-)?(\d+)\.(\d+)(?:\.(\d+))?/.exec(text.trim());
  if (!match) return null;
  return {
    product: mariadb ? 'MariaDB' : 'MySQL',
    version: [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)],
    text: text.trim(),
  };
}

/** Negative when a is older than b, 0 when equal, positive when newer. */
export function compareVersions(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const difference = (a[i] ?? 0) - (b[i] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

/**
 * Why the service cannot run on the server that answered `versionText` when DATABASE_URL has the
 * scheme `scheme`; null when it can.
 */
export function unsupportedServerProblem(scheme: 'mysql' | 'mariadb', versionText: string): string | null {
  const server = parseServerVersion(versionText);
  if (!server) return null; // an unknown shape (a proxy, a fork): not ours to refuse
  const minimum = MINIMUM_SERVER_VERSIONS[server.product];
  const found = server.product === 'MariaDB' ? server.text : `MySQL ${server.text}`;
  if (compareVersions(server.version, minimum.version) < 0) {
    return (
      `DATABASE_URL: the database server is ${found}, older than this service supports: ` +
      `it needs ${server.product} ${minimum.shown} or newer (for ${minimum.why}). ` +
      `Supported: MySQL ${MINIMUM_SERVER_VERSIONS.MySQL.shown}+, MariaDB ${MINIMUM_SERVER_VERSIONS.MariaDB.shown}+`
    );
  }
  if (scheme === 'mysql' && server.product === 'MariaDB') {
    return `DATABASE_URL: the database server is ${found}, but the URL says mysql://: use mariadb:// for a MariaDB (MySQL's dialect writes statements MariaDB does not parse)`;
  }
  return null;
}

/**
 * After the data source is initialized: on MySQL/MariaDB, asks the server its version and, when the
 * service cannot run on it, closes the data source and throws a ConfigError (the start prints it and
 * exits 1). SQLite is always fine.
 */
export async function assertSupportedServer(dataSource: DataSource): Promise<void> {
  const type = dataSource.options.type;
  if (type !== 'mysql' && type !== 'mariadb') return;
  const rows = (await dataSource.query('SELECT VERSION() AS version')) as { version: string }[];
  const problem = unsupportedServerProblem(type, String(rows[0]?.version ?? ''));
  if (problem === null) return;
  await dataSource.destroy().catch(() => undefined);
  throw new ConfigError([problem]);
}
