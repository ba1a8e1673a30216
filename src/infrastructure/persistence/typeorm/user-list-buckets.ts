import type { DataSource } from 'typeorm';
/**
 * The user list's page index (issue #26): the ids split into consecutive ranges (buckets), each with how many
 * users of each (role, status) it holds, so that the row at any position of the list, whole or filtered by role
 * and/or status, is found by adding up bucket counts and then seeking from the bucket's first id: never by
 * walking an OFFSET over every row before it.
 *
 * - `user_list_buckets`: one row per bucket, `start_id` its least id ('' for the first, which holds every id below
 *   the next start), `size` the rows it holds (erased ones included: a seek walks them too), `last_id` an upper
 *   bound of its ids (a bucket only closes when a larger id arrives, see user-list-bucket-writes.ts).
 * - `user_list_slot_counts`: per bucket, (role, status) and slot, how many rows; an erased user's row is counted
 *   under status `deleted` and role '' (no list shows it; a deleted role's erased rows move role unseen). A bucket's
 *   count of a key is the sum over its slots (a slot's share may be negative: a row counted in one slot is taken
 *   away in another). Each row carries its slot's `revision` that last wrote it, so a process reads only what
 *   changed since its copy.
 * - `user_list_revision`: one row per slot (ids 1 to LIST_SLOTS). A transaction that writes the index takes one
 *   slot's row and writes only that slot's counts, so concurrent writers (of every replica) take different slots
 *   and never queue on one row; writers of one slot take turns. Each slot's revision only grows, so the sum of
 *   all of them names a state of the index: a page statement reads that sum to know its process's copy is
 *   current. `rebuilt` (of slot 1) names the sum at the last rebuild (every bucket replaced).
 * - Buckets close asynchronously: UserListTail starts a new bucket above every committed id once the last one
 *   holds BUCKET_MAX rows, so writers never update a shared bucket row (`size` and `last_id` are written by a
 *   rebuild only, for people reading the table).
 */
export const LIST_REVISION_TABLE = 'user_list_revision';
export const LIST_BUCKETS_TABLE = 'user_list_buckets';
export const LIST_COUNTS_TABLE = 'user_list_slot_counts';
/** Slots of the index's revision (rows 1..LIST_SLOTS of LIST_REVISION_TABLE): how many writers never wait on each other. */
export const LIST_SLOTS = 16;

/** Rows a bucket is filled with when it is built from the table (the migration, a rebuild). */
export const BUCKET_FILL = 128;
/** A bucket holding this many rows is closed by UserListTail: the next larger id starts a new one. A seek walks about this many rows. */
export const BUCKET_MAX = 256;

/** The status under which an erased user's remaining row is counted, and the role it is counted under. */
export const ERASED_STATUS = 'deleted';

/** What a row is counted as: its role and status, an erased row under role ''. */
export interface CountKey {
  roleId: string;
  status: string;
}

export function countKeyOf(roleId: string, status: string): CountKey {
  return status === ERASED_STATUS ? { roleId: '', status } : { roleId, status };
}

/** Runs one statement and gives its rows (a TypeORM manager's or query runner's `query`, or a driver's). */
export type RunQuery = (sql: string, parameters?: unknown[]) => Promise<Record<string, unknown>[]>;

/**
 * Builds the index afresh from the users table, **in the caller's transaction** (the migration's; rebuildUserListIndex
 * opens one; a driver connection runs it between `START TRANSACTION` and `COMMIT`): the migration fills it for an
 * existing database, and whoever writes users rows around the repository (a bulk import, bench/seed.ts) runs it
 * after. Buckets of BUCKET_FILL rows in id order, counted in slot 1; every slot's revision moves on so every process
 * reads the new index. Run statement by statement in autocommit, its steps show one at a time, and a process that
 * read the moved revisions before the counts were back kept a wrong copy under the final revision (found 2026-12-05).
 */
export async function rebuildUserListBuckets(query: RunQuery, options: { chunk?: number } = {}): Promise<void> {
  const chunk = options.chunk ?? 10_000;
  // Every slot's turn first: no index write of another process interleaves with the rebuild.
  await query(`UPDATE ${LIST_REVISION_TABLE} SET revision = revision + 1`);
  const slots = await query(`SELECT id, revision FROM ${LIST_REVISION_TABLE}`);
  const sum = slots.reduce((total, row) => total + Number(row.revision), 0);
  const revision = Number(slots.find((row) => Number(row.id) === 1)?.revision ?? 0);
  // Every bucket is replaced: a process's copy older than this reads them all again (UserListIndex).
  await query(`UPDATE ${LIST_REVISION_TABLE} SET rebuilt = ? WHERE id = 1`, [sum]);
  await query(`DELETE FROM ${LIST_COUNTS_TABLE}`);
  await query(`DELETE FROM ${LIST_BUCKETS_TABLE}`);
  let bucket = { start: '', size: 0, last: '', counts: new Map<string, number>() };
  const buckets: (typeof bucket)[] = [];
  let after = '';
  for (;;) {
    const rows = await query(`SELECT id, role_id, status FROM users WHERE id > ? ORDER BY id LIMIT ${chunk}`, [after]);
    for (const row of rows) {
      const id = String(row.id);
      if (bucket.size >= BUCKET_FILL) {
        buckets.push(bucket);
        bucket = { start: id, size: 0, last: '', counts: new Map() };
      }
      const key = countKeyOf(String(row.role_id), String(row.status));
      const name = `${key.roleId}\u0000${key.status}`;
      bucket.counts.set(name, (bucket.counts.get(name) ?? 0) + 1);
      bucket.size++;
      bucket.last = id;
    }
    if (rows.length < chunk) break;
    after = String(rows.at(-1)!.id);
  }
  buckets.push(bucket);
  for (let i = 0; i < buckets.length; i += 500) {
    const batch = buckets.slice(i, i + 500);
    await query(
      `INSERT INTO ${LIST_BUCKETS_TABLE} (start_id, size, last_id) VALUES ${batch.map(() => '(?, ?, ?)').join(', ')}`,
      batch.flatMap((b) => [b.start, b.size, b.last]),
    );
    const counts = batch.flatMap((b) => [...b.counts].map(([name, n]) => [b.start, ...name.split('\u0000'), 1, n, revision]));
    if (counts.length > 0) {
      await query(
        `INSERT INTO ${LIST_COUNTS_TABLE} (start_id, role_id, status, slot, n, revision) VALUES ${counts.map(() => '(?, ?, ?, ?, ?, ?)').join(', ')}`,
        counts.flat(),
      );
    }
  }
}

/** rebuildUserListBuckets in a transaction of its own, on the service's data source (a bulk import, a test). */
export function rebuildUserListIndex(dataSource: DataSource): Promise<void> {
  return dataSource.transaction((manager) => rebuildUserListBuckets(async (sql, parameters) => (await manager.query(sql, parameters)) as Record<string, unknown>[]));
}
