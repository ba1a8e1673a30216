import type { DataSource, EntityManager } from 'typeorm';
import { currentParty } from '../../observability/request-context';
import type { ConnectionTurns } from './connection-turns';

/**
 * The time limit of a statement over a prefix search (`q`), the one list statement whose work grows with what the
 * caller typed: a prefix that matches every user counts a million keys three times. MariaDB bounds it with `SET
 * STATEMENT max_statement_time = s FOR …`, MySQL with the `MAX_EXECUTION_TIME(ms)` optimizer hint (top-level
 * SELECTs only: every statement bounded here is one). SQLite has neither and runs it unbounded (the embedded
 * default: one process on one file). `seconds` 0: no limit.
 */
function searchTimeLimit(dataSource: DataSource, seconds: number): (sql: string) => string {
  if (seconds <= 0) return (sql) => sql;
  const type = dataSource.driver.options.type;
  if (type === 'mariadb') return (sql) => `SET STATEMENT max_statement_time = ${seconds} FOR ${sql}`;
  if (type === 'mysql') {
    const hint = `SELECT /*+ MAX_EXECUTION_TIME(${Math.max(1, Math.round(seconds * 1000))}) */ `;
    return (sql) => {
      if (!sql.startsWith('SELECT ')) throw new Error(`a time-limited statement must be a SELECT: ${sql.slice(0, 40)}`);
      return hint + sql.slice('SELECT '.length);
    };
  }
  return (sql) => sql;
}

/** A list statement as sent: a prefix search's bounded in time (its work grows with the matches), any other as it is. */
function searchStatementBound(dataSource: DataSource, seconds: number): (filter: { prefix?: string }, sql: string) => string {
  const limited = searchTimeLimit(dataSource, seconds);
  return (filter, sql) => (filter.prefix === undefined ? sql : limited(sql));
}

/**
 * A list statement run: a prefix search's bounded in time (searchStatementBound), and, when it takes a connection of
 * its own (outside a transaction), run in the process's `search` turn (ConnectionTurns: SEARCH_SLOTS at once), so
 * searches never hold more of the pool than that, however many are sent; the turn is shared out between the callers
 * (the request's party), so one caller's hundred searches do not hold up another's one. Any other statement runs as
 * it is.
 */
export function searchStatementRunner(
  dataSource: DataSource,
  seconds: number,
  turns: ConnectionTurns,
): (manager: EntityManager, filter: { prefix?: string }, sql: string, parameters: unknown[]) => Promise<Record<string, unknown>[]> {
  const bounded = searchStatementBound(dataSource, seconds);
  return (manager, filter, sql, parameters) => {
    const run = async () => (await manager.query(bounded(filter, sql), parameters)) as Record<string, unknown>[];
    return filter.prefix !== undefined && manager.queryRunner === undefined ? turns.inTurn('search', run, currentParty()) : run();
  };
}

/** Whether a statement ended at its time limit: MariaDB's ER_STATEMENT_TIMEOUT (1969), MySQL's ER_QUERY_TIMEOUT (3024). */
export function isStatementTimeout(error: unknown): boolean {
  const e = error as { code?: string; errno?: number; driverError?: unknown };
  const inner = (e?.driverError ?? e) as { code?: string; errno?: number };
  return inner?.errno === 1969 || inner?.errno === 3024 || inner?.code === 'ER_STATEMENT_TIMEOUT' || inner?.code === 'ER_QUERY_TIMEOUT';
}
