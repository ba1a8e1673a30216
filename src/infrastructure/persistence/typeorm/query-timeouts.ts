import type { DataSource, Logger, QueryRunner } from 'typeorm';

/** mysql2's error for a query not answered within its timeout. */
const QUERY_TIMED_OUT = 'PROTOCOL_SEQUENCE_TIMEOUT';

/**
 * TypeORM's logger, silent, but for one duty: a query that timed out (mysql2's `timeout`, DATABASE_QUERY_TIMEOUT) has
 * its connection destroyed. mysql2 answers the timeout and keeps the connection, its command still waiting for an
 * answer; back in the pool, every later query on it would wait behind that command, for ever when the answer was lost
 * on the way (a failover, a network path that drops rather than resets). Destroyed, it leaves the pool, and the next
 * query opens a new connection (or fails to, within the connect timeout, while the database is away). The logger is
 * the one hook TypeORM gives that hands over the query runner of a failed query; the transaction's ROLLBACK on the
 * destroyed connection then fails at once, and TypeORM throws the timeout, which the API answers 503.
 */
export class TimedOutConnectionDiscarder implements Logger {
  logQueryError(error: string | Error, _query: string, _parameters?: unknown[], queryRunner?: QueryRunner): void {
    if (typeof error === 'string' || (error as { code?: unknown }).code !== QUERY_TIMED_OUT) return;
    const connection = (queryRunner as { databaseConnection?: { destroy?: () => void; threadId?: unknown } } | undefined)?.databaseConnection;
    const threadId = connection?.threadId;
    connection?.destroy?.();
    // The server does not see the client go while its statement runs: an UPDATE waiting on a lock, or walking a large
    // table, went on for seconds after its 503, holding its locks, and retries queued behind it (review of 2026-12-07,
    // admin work at scale). Killed, it stops and rolls back at once. One's own connection needs no privilege to kill;
    // while the database is away the kill fails like any statement, and is let go.
    if (queryRunner && typeof threadId === 'number' && Number.isSafeInteger(threadId) && threadId > 0) {
      queryRunner.connection.query(`KILL CONNECTION ${threadId}`).catch(() => undefined);
    }
  }

  logQuery(): void {}
  logQuerySlow(): void {}
  logSchemaBuild(): void {}
  logMigration(): void {}
  log(): void {}
}

/** The data source options that bound each MySQL/MariaDB query to `ms` (0: unbounded). */
export function queryTimeoutOptions(ms: number): { maxQueryExecutionTime?: number; enableQueryTimeout?: boolean; logger?: Logger } {
  return ms > 0 ? { maxQueryExecutionTime: ms, enableQueryTimeout: true, logger: new TimedOutConnectionDiscarder() } : {};
}

/**
 * `work` with no query timeout on `dataSource`: the migrations, whose lock waits up to two minutes for another
 * replica's and whose index builds on a large table may take longer than any request should. Run before the process
 * serves anything, so no request's query goes unbounded meanwhile.
 */
export async function withoutQueryTimeout<T>(dataSource: DataSource, work: () => Promise<T>): Promise<T> {
  const options = dataSource.driver.options as { enableQueryTimeout?: boolean };
  const before = options.enableQueryTimeout;
  if (!before) return work();
  options.enableQueryTimeout = false;
  try {
    return await work();
  } finally {
    options.enableQueryTimeout = before;
  }
}
