import type { EntityManager } from 'typeorm';
import { BUCKET_MAX, type CountKey, LIST_BUCKETS_TABLE, LIST_COUNTS_TABLE, LIST_REVISION_TABLE } from './user-list-buckets';

/** A user row added (`to` only), removed (`from` only) or moved between (role, status) counts (both). */
export interface ListChange {
  id: string;
  from?: CountKey;
  to?: CountKey;
}

interface BucketState {
  start: string;
  size: number;
  last: string;
  dirty: boolean;
}

/**
 * Writes a transaction's user changes into the page index (user-list-buckets.ts), at its end, on its connection:
 * the user rows and their counts commit together or not at all. The revision row is taken first and held to the
 * commit, so index writes of every process take turns; the buckets are then read with locking reads (the latest
 * committed, never the transaction's older snapshot). Taken last in the transaction, after every other lock it
 * holds, the turn waits on no one while held: it cannot close a deadlock cycle.
 *
 * A bucket grows until it holds BUCKET_MAX rows; then an id above every id it holds (`last_id`) starts a new one
 * (UUIDv7 ids arrive in order, so that is every insert but for clock skew between replicas). An id arriving out of
 * order into a full bucket stays in it: the bucket grows past BUCKET_MAX (a longer seek, still exact) until a
 * rebuild (rebuildUserListBuckets).
 */
export async function applyListChanges(manager: EntityManager, changes: readonly ListChange[]): Promise<void> {
  const moving = changes.filter((c) => !sameKey(c.from, c.to));
  if (moving.length === 0) return;
  const lock = ['mysql', 'mariadb'].includes(manager.connection.driver.options.type) ? ' FOR UPDATE' : '';
  const rows = async (sql: string, parameters: unknown[] = []) => (await manager.query(sql, parameters)) as Record<string, unknown>[];

  await manager.query(`UPDATE ${LIST_REVISION_TABLE} SET revision = revision + 1 WHERE id = 1`);
  const revision = Number((await rows(`SELECT revision FROM ${LIST_REVISION_TABLE} WHERE id = 1${lock}`))[0]?.revision);

  const buckets = new Map<string, BucketState>();
  const bucketOf = async (id: string): Promise<BucketState> => {
    const [row] = await rows(`SELECT start_id, size, last_id FROM ${LIST_BUCKETS_TABLE} WHERE start_id <= ? ORDER BY start_id DESC LIMIT 1${lock}`, [id]);
    if (!row) throw new Error(`${LIST_BUCKETS_TABLE} has no first bucket (''): run the migrations`);
    const start = String(row.start_id);
    const known = buckets.get(start);
    if (known) return known;
    const state = { start, size: Number(row.size), last: String(row.last_id), dirty: false };
    buckets.set(start, state);
    return state;
  };
  const deltas = new Map<string, { start: string; key: CountKey; n: number }>();
  const count = (start: string, key: CountKey, n: number) => {
    const name = `${start}\u0000${key.roleId}\u0000${key.status}`;
    const delta = deltas.get(name) ?? { start, key, n: 0 };
    delta.n += n;
    deltas.set(name, delta);
  };

  for (const change of [...moving].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    let bucket = await bucketOf(change.id);
    if (!change.from) {
      if (bucket.size >= BUCKET_MAX && change.id > bucket.last) {
        await manager.query(`INSERT INTO ${LIST_BUCKETS_TABLE} (start_id, size, last_id) VALUES (?, 0, ?)`, [change.id, change.id]);
        bucket = { start: change.id, size: 0, last: change.id, dirty: true };
        buckets.set(bucket.start, bucket);
      }
      bucket.size++;
      if (change.id > bucket.last) bucket.last = change.id;
      bucket.dirty = true;
    } else if (!change.to) {
      bucket.size--;
      bucket.dirty = true;
    }
    if (change.from) count(bucket.start, change.from, -1);
    if (change.to) count(bucket.start, change.to, +1);
  }

  for (const b of buckets.values()) {
    if (b.dirty) await manager.query(`UPDATE ${LIST_BUCKETS_TABLE} SET size = ?, last_id = ? WHERE start_id = ?`, [b.size, b.last, b.start]);
  }
  const where = 'start_id = ? AND role_id = ? AND status = ?';
  for (const { start, key, n } of deltas.values()) {
    if (n === 0) continue;
    const pk = [start, key.roleId, key.status];
    const [existing] = await rows(`SELECT n FROM ${LIST_COUNTS_TABLE} WHERE ${where}${lock}`, pk);
    if (existing) await manager.query(`UPDATE ${LIST_COUNTS_TABLE} SET n = n + ?, revision = ? WHERE ${where}`, [n, revision, ...pk]);
    else await manager.query(`INSERT INTO ${LIST_COUNTS_TABLE} (start_id, role_id, status, n, revision) VALUES (?, ?, ?, ?, ?)`, [...pk, n, revision]);
  }
}

function sameKey(a: CountKey | undefined, b: CountKey | undefined): boolean {
  return a !== undefined && b !== undefined && a.roleId === b.roleId && a.status === b.status;
}
