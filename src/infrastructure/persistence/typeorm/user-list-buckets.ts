/**
 * The user list's page index (issue #26): the ids split into consecutive ranges (buckets), each with how many
 * users of each (role, status) it holds, so that the row at any position of the list, whole or filtered by role
 * and/or status, is found by adding up bucket counts and then seeking from the bucket's first id: never by
 * walking an OFFSET over every row before it.
 *
 * - `user_list_buckets`: one row per bucket, `start_id` its least id ('' for the first, which holds every id below
 *   the next start), `size` the rows it holds (erased ones included: a seek walks them too), `last_id` an upper
 *   bound of its ids (a bucket only closes when a larger id arrives, see user-list-bucket-writes.ts).
 * - `user_list_bucket_counts`: per bucket and (role, status), how many rows; an erased user's row is counted under
 *   status `deleted` and role '' (no list shows it; a deleted role's erased rows move role unseen). Each row carries
 *   the `revision` that last wrote it, so a process reads only what changed since its copy.
 * - `user_list_revision`: one row; every write to the index moves it on, and takes it first (the one turn every
 *   replica's writers queue on), in the transaction of the user write, so the index is exact at every commit.
 *   `rebuilt` names the revision of the last rebuild (every bucket replaced).
 */
export const LIST_REVISION_TABLE = 'user_list_revision';
export const LIST_BUCKETS_TABLE = 'user_list_buckets';
export const LIST_COUNTS_TABLE = 'user_list_bucket_counts';

/** Rows a bucket is filled with when it is built from the table (the migration, a rebuild). */
export const BUCKET_FILL = 128;
/** A bucket holding this many rows closes: the next larger id starts a new one. A seek walks at most about this many rows. */
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
 * Builds the index afresh from the users table, in the caller's transaction: the migration fills it for an
 * existing database, and whoever writes users rows around the repository (a bulk import, bench/seed.ts) runs it
 * after. Buckets of BUCKET_FILL rows in id order; the revision moves on so every process reads the new index.
 */
export async function rebuildUserListBuckets(query: RunQuery, options: { chunk?: number } = {}): Promise<void> {
  const chunk = options.chunk ?? 10_000;
  // The turn first: no index write of another process interleaves with the rebuild.
  await query(`UPDATE ${LIST_REVISION_TABLE} SET revision = revision + 1 WHERE id = 1`);
  const revision = Number((await query(`SELECT revision FROM ${LIST_REVISION_TABLE} WHERE id = 1`))[0]?.revision ?? 0);
  // Every bucket is replaced: a process's copy older than this reads them all again (UserListIndex).
  await query(`UPDATE ${LIST_REVISION_TABLE} SET rebuilt = ? WHERE id = 1`, [revision]);
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
    const counts = batch.flatMap((b) => [...b.counts].map(([name, n]) => [b.start, ...name.split('\u0000'), n, revision]));
    if (counts.length > 0) {
      await query(
        `INSERT INTO ${LIST_COUNTS_TABLE} (start_id, role_id, status, n, revision) VALUES ${counts.map(() => '(?, ?, ?, ?, ?)').join(', ')}`,
        counts.flat(),
      );
    }
  }
}
