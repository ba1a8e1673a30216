import type { DataSource, EntityManager } from 'typeorm';
import { BatchedLookup } from './batched-lookup';
import type { UserRecord } from './records';
import type { UserListFilter } from '../../../application/ports/user-repository.port';
import { LIST_REVISION_TABLE } from './user-list-buckets';
import { searchStatementRunner } from './search-time-limit';
import type { ConnectionTurns } from './connection-turns';
import { filterStatements } from './user-filter-statements';
import { preparedReads } from './prepared-reads';
import { userTableShape } from './user-read-statements';

/** The filters the page index counts: a role, a status, both, or neither (the whole list). */
export type IndexedFilter = Pick<UserListFilter, 'roleId' | 'status'>;

/**
 * Where a seek reads: from a bucket's first id (`start`), and below `end`, the first id of the bucket after the
 * page's last match (null: to the end of the list). The bound changes no answer while the counts that placed the
 * page are the statement's (the revisions agree), and spares the server the range estimate of an open range: two
 * B-tree dives, one to the index's far end, and up to ten pages read between them (measured on MariaDB, 2026-12-05,
 * at 1 M users and a 128 MB pool: 4.8 pages read from disk per seek open, 2.0 bounded; MySQL's range optimizer
 * estimates a range by the same dives).
 */
export interface SeekRange {
  start: string;
  end: string | null;
  /** Ranges inside that hold no match by the same counts, left out of the read (UserListIndex.gapsUpTo); mostly none. */
  gaps: readonly SeekGap[];
}

/** Ids from `from` (included) to `to` (excluded): buckets with no match of the page's filter. */
export interface SeekGap {
  from: string;
  to: string;
}

/** A page read from a bucket's start, and the index revision its statement saw (null: the page came back empty). */
export interface SeekedPage {
  records: UserRecord[];
  revision: number | null;
}

/** A page after a cursor, how many matches lie from the bucket's start to the cursor, and the index revision its statement saw. */
export interface PageAfter {
  records: UserRecord[];
  before: number;
  revision: number;
}

/** A page after a cursor, how many users the filter matches, and how many of them at or before the cursor. */
export interface CountedAfter {
  records: UserRecord[];
  total: number;
  before: number;
}

/**
 * The statements of the user list that the page index (user-list-index.ts) places: a page sought from a
 * bucket's first id (`id >= start`, then at most a bucket's rows skipped: never the whole list's offset), a page
 * after a cursor (`id > after`), and how many matches a bucket holds up to a cursor. Each reads the filter's
 * index: the primary key, `(status, id)`, `(role_id, status, id)`, or `(role_id, id, status)` (migration
 * 1765200000000) for a role alone, which holds the status so erased users are skipped without reading rows.
 * The page's statement also reads the index revision, in the same snapshot: the page and the counts that placed
 * it agree when the revisions do.
 */
export class UserPageStatements {
  private readonly dataSource: DataSource;
  private readonly searchTimeLimitSeconds: number;
  private readonly turns: ConnectionTurns;
  private statements: ReturnType<typeof build> | null = null;

  /**
   * `searchTimeLimitSeconds`: SEARCH_TIME_LIMIT, the bound of a prefix search's statements; `connectionTurns`: the
   * process's, whose `search` turn they run in (search-time-limit.ts).
   */
  constructor({ dataSource, searchTimeLimitSeconds, connectionTurns }: { dataSource: DataSource; searchTimeLimitSeconds: number; connectionTurns: ConnectionTurns }) {
    this.dataSource = dataSource;
    this.searchTimeLimitSeconds = searchTimeLimitSeconds;
    this.turns = connectionTurns;
  }

  /** The page of `limit` matches of `filter` that starts `skip` matches after the first at or above `range.start`. */
  seek(manager: EntityManager, filter: IndexedFilter, range: SeekRange, skip: number, limit: number): Promise<SeekedPage> {
    return this.built().seek(manager, { filter, range, skip, limit });
  }

  /** The same outside any transaction: identical pages asked for at once share one query (BatchedLookup, never a cache). */
  seekBatched(filter: IndexedFilter, range: SeekRange, skip: number, limit: number): Promise<SeekedPage> {
    return this.built().seekBatched(filter, range, skip, limit);
  }

  /**
   * The first `limit` matches of `filter` with an id above `after` (and below `range.end`, when there is one), in one
   * statement with how many matches have an id from `range.start` to `after` (a bucket's, at most) and the index
   * revision. Past the last match the page is empty, the statement returns no row, and the count and the revision
   * come from `countFrom`.
   */
  async after(manager: EntityManager, filter: IndexedFilter, range: SeekRange, after: string, limit: number): Promise<PageAfter> {
    const page = await this.built().after(manager, filter, range, after, limit);
    if (page !== null) return page;
    const { n, revision } = await this.countFrom(manager, filter, range.start, after);
    return { records: [], before: n, revision };
  }

  /** How many matches of `filter` have an id from `start` to `upTo` (a bucket's, at most), and the index revision. */
  countFrom(manager: EntityManager, filter: IndexedFilter, start: string, upTo: string): Promise<{ n: number; revision: number }> {
    return this.built().countFrom(manager, filter, start, upTo);
  }

  revision(manager: EntityManager): Promise<number> {
    return this.built().revision(manager);
  }

  /**
   * Any filter's page after a cursor, with how many users it matches and how many at or before the cursor, counted
   * in the page's own statement over every match (window sums): what an e-mail or a prefix search is served by,
   * and any list inside a transaction.
   */
  afterCounted(manager: EntityManager, filter: UserListFilter, after: string, limit: number): Promise<CountedAfter> {
    return this.built().afterCounted(manager, filter, after, limit);
  }

  private built() {
    this.statements ??= build(this.dataSource, this.searchTimeLimitSeconds, this.turns);
    return this.statements;
  }
}

/** A seek: what a page placed by the index reads (UserPageStatements.seek's arguments). */
type Key = { filter: IndexedFilter; range: SeekRange; skip: number; limit: number };
/** How many seeks one statement holds: a batch is padded to the least of these that holds it. */
const SEEK_BATCH_SIZES = [2, 4, 8] as const;

function build(dataSource: DataSource, searchTimeLimitSeconds: number, turns: ConnectionTurns) {
  const { q, table, columns, id, filterColumns, hydrate } = userTableShape(dataSource);
  const listed = searchStatementRunner(dataSource, searchTimeLimitSeconds, turns);
  // The placed statements: a text per filter shape, run at every page, so each is prepared once per connection.
  const read = preparedReads(dataSource);
  const { roleId, status } = filterColumns;
  const selected = columns.map((c) => `u.${q(c.databaseName)}`).join(', ');
  // The sum of the slots' revisions: each only grows, so an equal sum is an unchanged index (user-list-buckets.ts).
  const revisionSql = `SELECT SUM(revision) AS revision FROM ${LIST_REVISION_TABLE}`;
  /** The filter's conditions on `users` and their values; `status <> 'deleted'` always holds (erased users are never listed). */
  const conditions = (filter: IndexedFilter): { sql: string; values: unknown[] } => {
    const sql: string[] = [];
    const values: unknown[] = [];
    if (filter.roleId !== undefined) {
      sql.push(`${roleId} = ?`);
      values.push(filter.roleId);
    }
    if (filter.status !== undefined) {
      sql.push(`${status} = ?`);
      values.push(filter.status);
    } else sql.push(`${status} <> 'deleted'`);
    return { sql: sql.join(' AND '), values };
  };
  const filtered = (filter: IndexedFilter) => filter.roleId !== undefined || filter.status !== undefined;
  /**
   * The filter's index, named: with `role_id = ?` (or `status = ?`) and `id >= ?`, MariaDB chose a `ref` on the
   * equality alone and filtered the ids, walking every entry before the bucket (222 ms at 1 M users against 0.45 ms
   * for the range the hint makes it take). The whole list keeps the primary key (no hint: SQLite cannot name it).
   */
  const mysqlFamily = ['mysql', 'mariadb'].includes(dataSource.driver.options.type);
  const from = (filter: IndexedFilter, alias = ''): string => {
    const named = alias === '' ? table : `${table} ${alias}`;
    const index =
      filter.roleId !== undefined
        ? filter.status !== undefined
          ? 'ix_users_role_status_id'
          : 'ix_users_role_id_status'
        : filter.status !== undefined
          ? 'ix_users_status_id'
          : null;
    if (index === null) return mysqlFamily ? `${named} FORCE INDEX (PRIMARY)` : named;
    return mysqlFamily ? `${named} FORCE INDEX (${index})` : `${named} INDEXED BY ${index}`;
  };

  /** How many matches of the filter have an id from one value to another: its values, the filter's then the two ids. */
  const countSql = (filter: IndexedFilter): string =>
    `SELECT COUNT(*) FROM ${from(filter)} WHERE ${conditions(filter).sql} AND ${id} >= ? AND ${id} <= ?`;

  /**
   * The gaps a range's statement leaves out: MySQL and MariaDB read the intervals between them as one ordered range
   * scan of several intervals (EXPLAIN: `range`, no filesort). SQLite's planner reads such an OR by gathering every
   * interval and sorting them (whole list), or walks a role's index from its first entry (role): it keeps the one range.
   */
  const gapsOf = ({ gaps }: Pick<SeekRange, 'gaps'>): readonly SeekGap[] => (mysqlFamily ? gaps : []);
  /**
   * A range's condition on `column`, from its start (`>=`, or `>` after a cursor) to its end, less its gaps (gapsOf):
   * one interval without gaps (the statement every other page runs), else the intervals between them. Its values:
   * rangeValues.
   */
  const range = (column: string, seekRange: Pick<SeekRange, 'end' | 'gaps'>, lower: '>=' | '>' = '>=') => {
    const { end } = seekRange;
    const gaps = gapsOf(seekRange);
    const below = (bound: string) => (end === null ? bound : `${bound} AND ${column} < ?`);
    if (gaps.length === 0) return below(`${column} ${lower} ?`);
    const inner = gaps.map((_, i) => `(${i === 0 ? `${column} ${lower} ?` : `${column} >= ?`} AND ${column} < ?)`);
    return `(${[...inner, `(${below(`${column} >= ?`)})`].join(' OR ')})`;
  };
  const rangeValues = (low: string, seekRange: Pick<SeekRange, 'end' | 'gaps'>): unknown[] => [
    low,
    ...gapsOf(seekRange).flatMap(({ from, to }) => [from, to]),
    ...(seekRange.end === null ? [] : [seekRange.end]),
  ];
  /**
   * A seek's SELECT, tagged `k` when it is one of a batch's: the whole list walks the primary key itself (its rows
   * lie in id order); a filter walks its index for the ids (covering: skipped entries cost no row read), then reads
   * the page's rows by primary key. Its parameters (seekValues): the filter's, the range's, the limit, the offset.
   */
  const seekSelect = (filter: IndexedFilter, shape: SeekRange, k: number | null): string => {
    const head = `SELECT ${k === null ? '' : `${k} AS k, `}(${revisionSql}) AS list_revision, ${selected}`;
    const where = conditions(filter).sql;
    return filtered(filter)
      ? `${head} FROM ${table} u JOIN (SELECT ${id} AS id FROM ${from(filter)} WHERE ${where} AND ${range(id, shape)} ORDER BY ${id} ASC LIMIT ? OFFSET ?) p ON p.id = u.${id}${k === null ? ` ORDER BY u.${id} ASC` : ''}`
      : `${head} FROM ${from(filter, 'u')} WHERE ${where} AND ${range(`u.${id}`, shape)} ORDER BY u.${id} ASC LIMIT ? OFFSET ?`;
  };
  const seekValues = ({ filter, range: seekRange, skip, limit }: Key): unknown[] => [...conditions(filter).values, ...rangeValues(seekRange.start, seekRange), limit, skip];

  const seek = async (manager: EntityManager, key: Key): Promise<SeekedPage> => {
    const rows = await read(manager, seekSelect(key.filter, key.range, null), seekValues(key));
    return { records: rows.map(hydrate), revision: rows.length > 0 ? Number(rows[0]!.list_revision) : null };
  };

  /**
   * Seeks of one filter shape and kind of range in one statement (MySQL, MariaDB): each a part of a UNION ALL tagged
   * with its place `k`, all in one snapshot, so different pages asked for at once cost one round trip as identical
   * ones do (measured on MariaDB at 1 M users, random pages of `role=admin` at 10 connections, 2026-12-06: 205 µs of
   * api and server CPU a page against 290 with a statement each). The parts are padded with empty ones (LIMIT 0) to
   * one of SEEK_BATCH_SIZES: a few texts per shape, each prepared once per connection. SQLite reads one statement at
   * a time (SqliteWriteQueue), so its batches hold one seek.
   */
  const seekUnion = (filter: IndexedFilter, shape: SeekRange, parts: number): string =>
    `${Array.from({ length: parts }, (_, k) => `(${seekSelect(filter, shape, k)})`).join(' UNION ALL ')} ORDER BY k, ${id}`;
  const seekMany = async (keys: Key[]): Promise<SeekedPage[]> => {
    if (keys.length === 1 || !mysqlFamily) return Promise.all(keys.map((key) => seek(dataSource.manager, key)));
    const parts = SEEK_BATCH_SIZES.find((size) => size >= keys.length)!;
    const values = Array.from({ length: parts }, (_, k) => (k < keys.length ? seekValues(keys[k]!) : seekValues({ ...keys[0]!, limit: 0 })));
    const rows = await read(dataSource.manager, seekUnion(keys[0]!.filter, keys[0]!.range, parts), values.flat());
    const pages = keys.map((): SeekedPage => ({ records: [], revision: null }));
    for (const row of rows) {
      const page = pages[Number(row.k)]!;
      page.records.push(hydrate(row));
      page.revision = Number(row.list_revision);
    }
    return pages;
  };

  const seeks = new BatchedLookup<string, SeekedPage>(async (keys) => {
    // One statement per filter shape and kind of range (bounded or open, and its gaps), of at most the largest batch size.
    const largest = SEEK_BATCH_SIZES[SEEK_BATCH_SIZES.length - 1]!;
    const groups = new Map<string, { key: string; seek: Key }[]>();
    for (const key of keys) {
      const seek = JSON.parse(key) as Key;
      const shape = `${seek.filter.roleId !== undefined}${seek.filter.status !== undefined}${seek.range.end === null}${seek.range.gaps.length}`;
      const group = groups.get(shape) ?? [];
      if (group.length === 0) groups.set(shape, group);
      group.push({ key, seek });
    }
    const chunks = [...groups.values()].flatMap((group) => Array.from({ length: Math.ceil(group.length / largest) }, (_, i) => group.slice(i * largest, (i + 1) * largest)));
    const loaded = await Promise.all(
      chunks.map(async (chunk) => {
        const pages = await seekMany(chunk.map(({ seek }) => seek));
        return chunk.map(({ key }, i) => [key, pages[i]!] as const);
      }),
    );
    return new Map(loaded.flat());
  });

  return {
    seek,
    async seekBatched({ roleId, status: wanted }: IndexedFilter, { start, end, gaps }: SeekRange, skip: number, limit: number): Promise<SeekedPage> {
      // Every field named in a fixed order: two equal requests are one key.
      const key: Key = { filter: { roleId, status: wanted }, range: { start, end, gaps: gaps.map(({ from, to }) => ({ from, to })) }, skip, limit };
      return (await seeks.get(JSON.stringify(key)))!;
    },
    async after(manager: EntityManager, filter: IndexedFilter, seekRange: SeekRange, after: string, limit: number): Promise<PageAfter | null> {
      const where = conditions(filter);
      // The count and the revision are scalar subqueries of the page's own statement: one round trip, one snapshot.
      // Bounded above as a seek is (SeekRange), so the server's range estimate reads no page past the bound.
      const sql = `SELECT (${revisionSql}) AS list_revision, (${countSql(filter)}) AS matched_before, ${selected} FROM ${table} u JOIN (SELECT ${id} AS id FROM ${from(filter)} WHERE ${where.sql} AND ${range(id, seekRange, '>')} ORDER BY ${id} ASC LIMIT ?) p ON p.id = u.${id} ORDER BY u.${id} ASC`;
      const rows = await read(manager, sql, [...where.values, seekRange.start, after, ...where.values, ...rangeValues(after, seekRange), limit]);
      if (rows.length === 0) return null;
      return { records: rows.map(hydrate), before: Number(rows[0]!.matched_before), revision: Number(rows[0]!.list_revision) };
    },
    async countFrom(manager: EntityManager, filter: IndexedFilter, start: string, upTo: string) {
      const where = conditions(filter);
      const sql = `SELECT (${revisionSql}) AS list_revision, (${countSql(filter)}) AS n`;
      const [row] = await read(manager, sql, [...where.values, start, upTo]);
      return { n: Number(row?.n ?? 0), revision: Number(row?.list_revision) };
    },
    async afterCounted(manager: EntityManager, filter: UserListFilter, after: string, limit: number): Promise<CountedAfter> {
      const { matched, count } = filterStatements(filterColumns, filter);
      const windowed =
        `SELECT m.id AS id, COUNT(*) OVER () AS matched_total, SUM(CASE WHEN m.id <= ? THEN 1 ELSE 0 END) OVER () AS matched_before FROM (${matched.sql}) m`;
      const page = `SELECT w.id, w.matched_total, w.matched_before FROM (${windowed}) w WHERE w.id > ? ORDER BY w.id ASC LIMIT ?`;
      const sql = `SELECT ${selected}, p.matched_total AS matched_total, p.matched_before AS matched_before FROM ${table} u JOIN (${page}) p ON p.id = u.${id} ORDER BY u.${id} ASC`;
      const rows = await listed(manager, filter, sql, [after, ...matched.parameters, after, limit]);
      if (rows.length > 0) return { records: rows.map(hydrate), total: Number(rows[0]!.matched_total), before: Number(rows[0]!.matched_before) };
      // Nothing after the cursor: every match is at or before it.
      const [row] = await listed(manager, filter, count.sql, count.parameters);
      const total = Number(row?.n ?? 0);
      return { records: [], total, before: total };
    },
    async revision(manager: EntityManager): Promise<number> {
      const [row] = (await manager.query(revisionSql)) as Record<string, unknown>[];
      return Number(row?.revision);
    },
  };
}
