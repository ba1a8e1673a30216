import type { DataSource, EntityManager } from 'typeorm';
import type { UserListFilter } from '../../../application/ports/user-repository.port';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import { BatchedLookup, SharedQueries } from './batched-lookup';
import { isMysqlFamily } from './data-source';
import type { UserRecord } from './records';
import { UserSchema } from './records';
import { searchStatementRunner } from './search-time-limit';
import type { ConnectionTurns } from './connection-turns';
import { preparedReads } from './prepared-reads';
import { filterStatements } from './user-filter-statements';

/** A page of the users a filter matches, and how many it matches (null when the page is empty). */
export interface CountedPage {
  records: UserRecord[];
  total: number | null;
}

/**
 * The user reads on the hot paths (every authenticated request, every sign-in, every user page),
 * as SQL written once per DataSource and run with `manager.query`. TypeORM's `find()` builds,
 * renders and re-parses its query on every call, which cost more CPU than the round trip itself
 * (profile in docs/BENCHMARKS.md). Values still go through the driver's own hydration, so dates
 * and numbers come back as they would from `find()`, on MySQL, MariaDB and both SQLite drivers.
 */
export interface UserReads {
  byId(manager: EntityManager, id: string): Promise<UserRecord | null>;
  /** By id, read locking on MySQL and MariaDB (the latest committed row, held until the transaction ends); as `byId` on SQLite. */
  byIdLocked(manager: EntityManager, id: string): Promise<UserRecord | null>;
  /** By id outside any transaction: concurrent calls share round trips (see BatchedLookup), never a cache. */
  byIdBatched(id: string): Promise<UserRecord | null>;
  byUsernameKey(manager: EntityManager, usernameKey: string): Promise<UserRecord | null>;
  /**
   * The same page with how many users the filter matches, counted in the same statement (`COUNT(*) OVER ()`
   * over the matches, before the page is cut): null when the page is empty (past the end, or no match).
   */
  filteredPageCounted(manager: EntityManager, filter: UserListFilter, offset: number, limit: number): Promise<CountedPage>;
  /** The same outside any transaction: identical counted pages asked for at once share one query (see BatchedLookup). */
  filteredPageCountedBatched(filter: UserListFilter, offset: number, limit: number): Promise<CountedPage>;
  /** How many users the filter matches, counted now with the page's predicate (the caches: user-total-cache.ts). */
  filteredCount(manager: EntityManager, filter: UserListFilter): Promise<number>;
}

/**
 * The statements of one DataSource, and the batches in flight on it: one per process, registered by the
 * composition root and shared by every user repository (transactional or not), so that concurrent
 * look-ups from any of them share round trips.
 */
export class UserReadStatements implements UserReads {
  private readonly dataSource: DataSource;
  private readonly searchTimeLimitSeconds: number;
  private readonly turns: ConnectionTurns;
  private statements: UserReads | null = null;

  /**
   * `searchTimeLimitSeconds`: SEARCH_TIME_LIMIT, the bound of a prefix search's statements; `connectionTurns`: the
   * process's, whose `search` turn they run in (search-time-limit.ts).
   */
  constructor({ dataSource, searchTimeLimitSeconds, connectionTurns }: { dataSource: DataSource; searchTimeLimitSeconds: number; connectionTurns: ConnectionTurns }) {
    this.dataSource = dataSource;
    this.searchTimeLimitSeconds = searchTimeLimitSeconds;
    this.turns = connectionTurns;
  }

  byId(manager: EntityManager, id: string): Promise<UserRecord | null> {
    return this.built().byId(manager, id);
  }

  byIdLocked(manager: EntityManager, id: string): Promise<UserRecord | null> {
    return this.built().byIdLocked(manager, id);
  }

  byIdBatched(id: string): Promise<UserRecord | null> {
    return this.built().byIdBatched(id);
  }

  byUsernameKey(manager: EntityManager, usernameKey: string): Promise<UserRecord | null> {
    return this.built().byUsernameKey(manager, usernameKey);
  }







  filteredPageCounted(manager: EntityManager, filter: UserListFilter, offset: number, limit: number): Promise<CountedPage> {
    return this.built().filteredPageCounted(manager, filter, offset, limit);
  }

  filteredPageCountedBatched(filter: UserListFilter, offset: number, limit: number): Promise<CountedPage> {
    return this.built().filteredPageCountedBatched(filter, offset, limit);
  }

  filteredCount(manager: EntityManager, filter: UserListFilter): Promise<number> {
    return this.built().filteredCount(manager, filter);
  }

  /** Written on first use: the repositories are made before their DataSource is initialised. */
  private built(): UserReads {
    this.statements ??= buildUserReads(this.dataSource, this.searchTimeLimitSeconds, this.turns);
    return this.statements;
  }
}

/**
 * The `users` table as the statements name it on one DataSource: its escaped name and columns, the columns a
 * filter reads (user-filter-statements.ts), and a row turned into a record by the driver's own hydration.
 * Shared by these reads and the list's pages (user-page-statements.ts).
 */
export function userTableShape(dataSource: DataSource) {
  const metadata = dataSource.getMetadata(UserSchema);
  const { driver } = dataSource;
  const q = (name: string) => driver.escape(name);
  const table = q(metadata.tableName);
  const columns: ColumnMetadata[] = metadata.columns;
  const column = (property: keyof UserRecord) => q(metadata.findColumnWithPropertyName(property)!.databaseName);
  const id = column('id');
  const filterColumns = {
    table,
    id,
    roleId: column('roleId'),
    status: column('status'),
    emailKey: column('emailKey'),
    nameKey: column('nameKey'),
    usernameKey: column('usernameKey'),
  };
  const hydrate = (row: Record<string, unknown>): UserRecord => {
    const record: Record<string, unknown> = {};
    for (const c of columns) record[c.propertyName] = driver.prepareHydratedValue(row[c.databaseName], c);
    return record as unknown as UserRecord;
  };
  return { q, table, columns, column, id, filterColumns, hydrate };
}

function buildUserReads(dataSource: DataSource, searchTimeLimitSeconds: number, turns: ConnectionTurns): UserReads {
  const { q, table, columns, column, id, filterColumns, hydrate } = userTableShape(dataSource);
  const listed = searchStatementRunner(dataSource, searchTimeLimitSeconds, turns);
  const select = `SELECT ${columns.map((c) => q(c.databaseName)).join(', ')} FROM ${table}`;
  const many = async (manager: EntityManager, sql: string, parameters: unknown[]) =>
    ((await manager.query(sql, parameters)) as Record<string, unknown>[]).map(hydrate);
  // A user by id or by username: fixed texts read on every sign-in and every change, prepared once per connection.
  const read = preparedReads(dataSource);
  const one = async (manager: EntityManager, sql: string, parameters: unknown[]) => {
    const [row] = await read(manager, sql, parameters);
    return row === undefined ? null : hydrate(row);
  };

  const byIdSql = `${select} WHERE ${id} = ?`;
  const byIdLockedSql = isMysqlFamily(dataSource) ? `${byIdSql} FOR UPDATE` : byIdSql;
  const byUsernameSql = `${select} WHERE ${column('usernameKey')} = ?`;

  const byIds = async (manager: EntityManager, ids: readonly string[]) =>
    ids.length === 0 ? [] : many(manager, `${select} WHERE ${id} IN (${ids.map(() => '?').join(', ')}) ORDER BY ${id} ASC`, [...ids]);
  const batched = new BatchedLookup<string, UserRecord>(
    async (ids) => new Map((await byIds(dataSource.manager, ids)).map((record) => [record.id, record])),
  );

  // The counted page's ids come from the filter's index(es); only the page's rows are then read, by primary key.
  const joinedColumns = columns.map((c) => `u.${q(c.databaseName)}`).join(', ');

  const filteredPageCounted = async (manager: EntityManager, filter: UserListFilter, offset: number, limit: number): Promise<CountedPage> => {
    const { matched } = filterStatements(filterColumns, filter);
    const page = `SELECT m.id AS id, COUNT(*) OVER () AS matched_total FROM (${matched.sql}) m ORDER BY m.id ASC LIMIT ? OFFSET ?`;
    const sql = `SELECT ${joinedColumns}, p.matched_total AS matched_total FROM ${table} u JOIN (${page}) p ON p.id = u.${id} ORDER BY u.${id} ASC`;
    const rows = await listed(manager, filter, sql, [...matched.parameters, limit, offset]);
    return { records: rows.map(hydrate), total: rows.length > 0 ? Number(rows[0]!.matched_total) : null };
  };
  /** Identical filtered reads asked for at once, outside any transaction, share one query (never a cache); others never wait for them. */
  type PageKey = { filter: UserListFilter; offset: number; limit: number };
  const sharedByPage = <V>(read: (manager: EntityManager, filter: UserListFilter, offset: number, limit: number) => Promise<V>) => {
    const queries = new SharedQueries<string, V>((key) => {
      const { filter, offset, limit } = JSON.parse(key) as PageKey;
      return read(dataSource.manager, filter, offset, limit);
    });
    return ({ roleId, status, emailKey, prefix }: UserListFilter, offset: number, limit: number): Promise<V> => {
      // The key names every field in a fixed order, so two equal filters are one key.
      const key: PageKey = { filter: { roleId, status, emailKey, prefix }, offset, limit };
      return queries.get(JSON.stringify(key));
    };
  };
  const filteredPageCountedBatched = sharedByPage(filteredPageCounted);

  return {
    byId: (manager, value) => one(manager, byIdSql, [value]),
    byIdLocked: (manager, value) => one(manager, byIdLockedSql, [value]),
    byIdBatched: (value) => batched.get(value),
    byUsernameKey: (manager, value) => one(manager, byUsernameSql, [value]),
    filteredPageCounted,
    filteredPageCountedBatched,
    async filteredCount(manager, filter) {
      const { count } = filterStatements(filterColumns, filter);
      const rows = await listed(manager, filter, count.sql, count.parameters);
      return Number(rows[0]?.n ?? 0);
    },
  };
}
