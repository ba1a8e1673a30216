import type { DataSource } from 'typeorm';
import { BUCKET_MAX, ERASED_STATUS, LIST_COUNTS_TABLE, LIST_REVISION_TABLE } from './user-list-buckets';
import type { IndexedFilter, SeekGap } from './user-page-statements';
import type { SqliteWriteQueue } from './sqlite-write-queue';
import { UserListTail } from './user-list-tail';

/** Where a position of a filtered list lies: `skip` matches past the first at or above `start`. */
export interface Placement {
  revision: number;
  total: number;
  /** Null when the position is past the end. */
  start: string | null;
  skip: number;
  /**
   * The first id of the bucket after the one holding the page's last match: every match from `start` to the page's
   * end lies below it, by this copy's counts. Null when that bucket is the last (no bound).
   */
  end: string | null;
  /** Runs of buckets inside the page's range that hold no match and many erased rows: the seek leaves them out. */
  gaps: SeekGap[];
}

/**
 * Erased rows a run of buckets without a match must hold for a seek to leave it out: about a bucket's, so a page
 * never walks more than a bucket of them between two of its matches (up to MAX_GAPS runs; below that, one more
 * range costs the server about what walking the rows would).
 */
const GAP_ROWS = BUCKET_MAX;
/** Runs a seek leaves out at most (the largest, by erased rows): each is one more range in the statement's text. */
export const MAX_GAPS = 4;

/**
 * This process's copy of the page index's counts (user-list-buckets.ts), as of one revision, and the running
 * sums of each filter asked for, so a position is placed by a binary search in memory. Never answered from
 * alone: every page read also reads the revision in its own statement (UserPageStatements), and a page whose
 * revision is not this copy's makes the copy read what changed (rows stamped above its revision) and the page be
 * placed again. So a copy never serves a page or a total of another revision, on any replica, however the rows
 * were written. One per process and data source, registered by the composition root.
 */
export class UserListIndex {
  private readonly dataSource: DataSource;
  /** The sum of the slots' revisions this copy is of (user-list-buckets.ts), and each slot's. */
  private revision = -1;
  private slots = new Map<number, number>();
  /** Bucket starts, ascending, and per bucket the count of each (role, status) in each slot. */
  private starts: string[] = [];
  private counts = new Map<string, Map<string, number>>();
  private sums = new Map<string, Float64Array>();
  private reading: Promise<void> | null = null;

  /** Closes the last bucket when it is full: this process's writes tell it how many rows they added. */
  readonly tail: UserListTail;

  constructor({ dataSource, sqliteWriteQueue }: { dataSource: DataSource; sqliteWriteQueue: SqliteWriteQueue }) {
    this.dataSource = dataSource;
    this.tail = new UserListTail({ dataSource, sqliteWriteQueue });
  }

  get currentRevision(): number {
    return this.revision;
  }

  /** Brings the copy up to the index as committed now (one read at a time; callers during one share it). */
  refresh(): Promise<void> {
    this.reading ??= this.read().finally(() => {
      this.reading = null;
    });
    return this.reading;
  }

  /** The copy, read first if this process has none yet. */
  async ready(): Promise<void> {
    if (this.revision < 0) await this.refresh();
  }

  /** Where the page of `limit` matches from the match at `offset` (0-based) of `filter` lies, in this copy. */
  place(filter: IndexedFilter, offset: number, limit: number): Placement {
    const sums = this.sumsOf(filter);
    const total = sums[sums.length - 1]!;
    if (offset >= total) return { revision: this.revision, total, start: null, skip: 0, end: null, gaps: [] };
    const first = this.bucketHolding(sums, offset);
    const last = Math.min(offset + limit, total) - 1;
    const end = this.boundAbove(sums, last, first);
    return { revision: this.revision, total, start: this.starts[first]!, skip: offset - sums[first]!, end, gaps: this.gapsUpTo(filter, sums, first, last) };
  }

  /**
   * The runs of buckets after bucket `from` and before the one holding the match at position `last` that hold no
   * match of the filter but at least GAP_ROWS erased rows (a bulk erasure of consecutive ids leaves such a block):
   * the seek would walk every one of those rows, in the primary key or a role's index, to reach the page's next
   * match (0.9 s across 650 000 erased users, review of 2026-12-07). A status's index holds no erased entry, so a
   * filter by status has none. Found one bucket per match of the page: at most `limit` binary searches.
   */
  private gapsUpTo(filter: IndexedFilter, sums: Float64Array, from: number, last: number): SeekGap[] {
    if (filter.status !== undefined) return [];
    const found: { gap: SeekGap; rows: number }[] = [];
    let previous = from;
    for (let position = sums[from + 1]!; position <= last; position = sums[previous + 1]!) {
      const holding = this.bucketHolding(sums, position);
      if (holding > previous + 1) {
        // Buckets without a match between two that hold the page's: read only then (most pages have none).
        const erased = this.erasedSums();
        const rows = erased[holding]! - erased[previous + 1]!;
        if (rows >= GAP_ROWS) found.push({ gap: { from: this.starts[previous + 1]!, to: this.starts[holding]! }, rows });
      }
      previous = holding;
    }
    if (found.length <= MAX_GAPS) return found.map(({ gap }) => gap);
    const largest = new Set([...found].sort((a, b) => b.rows - a.rows).slice(0, MAX_GAPS));
    return found.filter((run) => largest.has(run)).map(({ gap }) => gap);
  }

  /**
   * The start of the bucket after the one holding the match at `position` (or after bucket `from`, if that is later):
   * every match up to that position lies below it. Null when that bucket is the last.
   */
  private boundAbove(sums: Float64Array, position: number, from: number): string | null {
    return this.starts[Math.max(this.bucketHolding(sums, position), from) + 1] ?? null;
  }

  /** The last bucket whose running sum is at or below the offset: it holds the match (empty buckets before it do not). */
  private bucketHolding(sums: Float64Array, offset: number): number {
    let [lo, hi] = [0, this.starts.length - 1];
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (sums[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /**
   * The bucket holding `id`, the matches of `filter` in the buckets before it, the filter's total, and `end`: a bound
   * above the page of `limit` matches after `id` (null: none). The page's first match is at most the first match
   * past this bucket (position `sums[b + 1]`), so its last is at most `limit - 1` further on, and lies below the
   * start of the bucket after the one holding that position.
   */
  bucketOf(filter: IndexedFilter, id: string, limit: number): { revision: number; start: string; before: number; total: number; end: string | null; gaps: SeekGap[] } {
    const sums = this.sumsOf(filter);
    let [lo, hi] = [0, this.starts.length - 1];
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= id) lo = mid;
      else hi = mid - 1;
    }
    const total = sums[sums.length - 1] ?? 0;
    const last = Math.min((sums[lo + 1] ?? total) + limit, total) - 1;
    const end = last < 0 ? null : this.boundAbove(sums, last, lo);
    const gaps = last < 0 ? [] : this.gapsUpTo(filter, sums, lo, last);
    return { revision: this.revision, start: this.starts[lo] ?? '', before: sums[lo] ?? 0, total, end, gaps };
  }

  private sumsOf({ roleId, status }: IndexedFilter): Float64Array {
    return this.runningSums(
      `${roleId ?? ''}\u0000${status ?? ''}`,
      (keyRole, keyStatus) =>
        keyStatus !== ERASED_STATUS && (roleId === undefined || roleId === keyRole) && (status === undefined || status === keyStatus),
    );
  }

  /** Running sums of each bucket's erased rows (counted under ERASED_STATUS), where a gap is looked for. */
  private erasedSums(): Float64Array {
    // Two separators: no filter's name (one) is this one.
    return this.runningSums('\u0000\u0000erased', (_, keyStatus) => keyStatus === ERASED_STATUS);
  }

  /** Per bucket, the running sum of the counts whose (role, status) `counted` takes, kept under `name` until the copy changes. */
  private runningSums(name: string, counted: (role: string, status: string) => boolean): Float64Array {
    let sums = this.sums.get(name);
    if (!sums) {
      sums = new Float64Array(this.starts.length + 1);
      for (let i = 0; i < this.starts.length; i++) {
        let n = 0;
        for (const [key, count] of this.counts.get(this.starts[i]!) ?? []) {
          const [keyRole, keyStatus] = key.split('\u0000') as [string, string, string];
          if (counted(keyRole, keyStatus)) n += count;
        }
        sums[i + 1] = sums[i]! + n;
      }
      // At most a few hundred filters are kept: every role alone and with each status, and each status alone.
      if (this.sums.size >= 512) this.sums.clear();
      this.sums.set(name, sums);
    }
    return sums;
  }

  private async read(): Promise<void> {
    const manager = this.dataSource.manager;
    // The revisions first, the changed rows after: the rows are then at least as new as the revisions they are
    // labelled with, and a page statement that still sees that sum sees exactly these counts.
    const state = (await manager.query(`SELECT id, revision, rebuilt FROM ${LIST_REVISION_TABLE}`)) as Record<string, unknown>[];
    const slots = new Map(state.map((row) => [Number(row.id), Number(row.revision)]));
    const revision = [...slots.values()].reduce((sum, n) => sum + n, 0);
    if (revision === this.revision) return;
    // A rebuild replaced every bucket: read them all again.
    const whole = state.some((row) => Number(row.rebuilt) > this.revision);
    const changed = [...slots].filter(([slot, n]) => whole || this.slots.get(slot) !== n);
    const since = changed.map(([slot]) => `(slot = ${slot} AND revision > ?)`).join(' OR ');
    const rows = (await manager.query(
      `SELECT start_id, role_id, status, slot, n FROM ${LIST_COUNTS_TABLE}${whole ? '' : ` WHERE ${since}`}`,
      whole ? [] : changed.map(([slot]) => this.slots.get(slot) ?? -1),
    )) as Record<string, unknown>[];
    if (whole) {
      this.starts = [];
      this.counts = new Map();
    }
    const added: string[] = [];
    for (const row of rows) {
      const start = String(row.start_id);
      let bucket = this.counts.get(start);
      if (!bucket) {
        bucket = new Map();
        this.counts.set(start, bucket);
        added.push(start);
      }
      bucket.set(`${String(row.role_id)}\u0000${String(row.status)}\u0000${Number(row.slot)}`, Number(row.n));
    }
    if (added.length > 0) this.starts = [...this.starts, ...added].sort();
    if (this.starts[0] !== '') {
      // The first bucket ('') always exists, counted or not.
      this.starts.unshift('');
      this.counts.set('', this.counts.get('') ?? new Map());
    }
    this.sums.clear();
    this.slots = slots;
    this.revision = revision;
  }
}
