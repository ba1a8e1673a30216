import type { DataSource, EntityManager } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import { BatchedLookup } from './batched-lookup';
import type { UserRecord } from './records';
import { UserSchema } from './records';

/**
 * The user reads on the hot paths (every authenticated request, every sign-in, every user page),
 * as SQL written once per DataSource and run with `manager.query`. TypeORM's `find()` builds,
 * renders and re-parses its query on every call, which cost more CPU than the round trip itself
 * (profile in docs/BENCHMARKS.md). Values still go through the driver's own hydration, so dates
 * and numbers come back as they would from `find()`, on MySQL, MariaDB and both SQLite drivers.
 */
export interface UserReads {
  byId(manager: EntityManager, id: string): Promise<UserRecord | null>;
  /** By id outside any transaction: concurrent calls share round trips (see BatchedLookup), never a cache. */
  byIdBatched(id: string): Promise<UserRecord | null>;
  byUsernameKey(manager: EntityManager, usernameKey: string): Promise<UserRecord | null>;
  /** The page of users by id order, `limit` rows from `offset` (erased users are skipped). */
  page(manager: EntityManager, offset: number, limit: number): Promise<UserRecord[]>;
  /** The same outside any transaction: identical pages asked for at once share one query (see BatchedLookup). */
  pageBatched(offset: number, limit: number): Promise<UserRecord[]>;
  /** Only the ids of a page, in either direction (the deferred join of deep pages). */
  pageIds(manager: EntityManager, offset: number, limit: number, descending: boolean): Promise<string[]>;
  byIds(manager: EntityManager, ids: readonly string[]): Promise<UserRecord[]>;
}

/**
 * The statements of one DataSource, and the batches in flight on it: one per process, registered by the
 * composition root and shared by every user repository (transactional or not), so that concurrent
 * look-ups from any of them share round trips.
 */
export class UserReadStatements implements UserReads {
  private readonly dataSource: DataSource;
  private statements: UserReads | null = null;

  constructor({ dataSource }: { dataSource: DataSource }) {
    this.dataSource = dataSource;
  }

  byId(manager: EntityManager, id: string): Promise<UserRecord | null> {
    return this.built().byId(manager, id);
  }

  byIdBatched(id: string): Promise<UserRecord | null> {
    return this.built().byIdBatched(id);
  }

  byUsernameKey(manager: EntityManager, usernameKey: string): Promise<UserRecord | null> {
    return this.built().byUsernameKey(manager, usernameKey);
  }

  page(manager: EntityManager, offset: number, limit: number): Promise<UserRecord[]> {
    return this.built().page(manager, offset, limit);
  }

  pageBatched(offset: number, limit: number): Promise<UserRecord[]> {
    return this.built().pageBatched(offset, limit);
  }

  pageIds(manager: EntityManager, offset: number, limit: number, descending: boolean): Promise<string[]> {
    return this.built().pageIds(manager, offset, limit, descending);
  }

  byIds(manager: EntityManager, ids: readonly string[]): Promise<UserRecord[]> {
    return this.built().byIds(manager, ids);
  }

  /** Written on first use: the repositories are made before their DataSource is initialised. */
  private built(): UserReads {
    this.statements ??= buildUserReads(this.dataSource);
    return this.statements;
  }
}

function buildUserReads(dataSource: DataSource): UserReads {
  const metadata = dataSource.getMetadata(UserSchema);
  const { driver } = dataSource;
  const q = (name: string) => driver.escape(name);
  const table = q(metadata.tableName);
  const columns: ColumnMetadata[] = metadata.columns;
  const column = (property: keyof UserRecord) => q(metadata.findColumnWithPropertyName(property)!.databaseName);
  const select = `SELECT ${columns.map((c) => q(c.databaseName)).join(', ')} FROM ${table}`;
  const id = column('id');

  const hydrate = (row: Record<string, unknown>): UserRecord => {
    const record: Record<string, unknown> = {};
    for (const c of columns) record[c.propertyName] = driver.prepareHydratedValue(row[c.databaseName], c);
    return record as unknown as UserRecord;
  };
  const many = async (manager: EntityManager, sql: string, parameters: unknown[]) =>
    ((await manager.query(sql, parameters)) as Record<string, unknown>[]).map(hydrate);
  const one = async (manager: EntityManager, sql: string, parameters: unknown[]) =>
    (await many(manager, sql, parameters))[0] ?? null;

  const byIdSql = `${select} WHERE ${id} = ?`;
  const byUsernameSql = `${select} WHERE ${column('usernameKey')} = ?`;
  // An erased user's remaining row is never listed.
  const listed = `${column('status')} <> 'deleted'`;
  const pageSql = `${select} WHERE ${listed} ORDER BY ${id} ASC LIMIT ? OFFSET ?`;
  const idsAscSql = `SELECT ${id} AS id FROM ${table} WHERE ${listed} ORDER BY ${id} ASC LIMIT ? OFFSET ?`;
  const idsDescSql = `SELECT ${id} AS id FROM ${table} WHERE ${listed} ORDER BY ${id} DESC LIMIT ? OFFSET ?`;

  const byIds = async (manager: EntityManager, ids: readonly string[]) =>
    ids.length === 0 ? [] : many(manager, `${select} WHERE ${id} IN (${ids.map(() => '?').join(', ')}) ORDER BY ${id} ASC`, [...ids]);
  const batched = new BatchedLookup<string, UserRecord>(
    async (ids) => new Map((await byIds(dataSource.manager, ids)).map((record) => [record.id, record])),
  );

  const pages = new BatchedLookup<string, UserRecord[]>(async (keys) => {
    const loaded = await Promise.all(
      keys.map(async (key) => {
        const [offset, limit] = key.split(':').map(Number) as [number, number];
        return [key, await many(dataSource.manager, pageSql, [limit, offset])] as const;
      }),
    );
    return new Map(loaded);
  });

  return {
    byId: (manager, value) => one(manager, byIdSql, [value]),
    pageBatched: async (offset, limit) => (await pages.get(`${offset}:${limit}`)) ?? [],
    byIdBatched: (value) => batched.get(value),
    byUsernameKey: (manager, value) => one(manager, byUsernameSql, [value]),
    page: (manager, offset, limit) => many(manager, pageSql, [limit, offset]),
    async pageIds(manager, offset, limit, descending) {
      const rows = (await manager.query(descending ? idsDescSql : idsAscSql, [limit, offset])) as { id: string }[];
      return rows.map((row) => row.id);
    },
    byIds,
  };
}
