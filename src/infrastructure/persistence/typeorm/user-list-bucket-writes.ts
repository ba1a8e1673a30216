import type { EntityManager } from 'typeorm';
import { isMysqlFamily } from './data-source';
import { type CountKey, LIST_BUCKETS_TABLE, LIST_COUNTS_TABLE, LIST_REVISION_TABLE, LIST_SLOTS } from './user-list-buckets';

/** A user row added (`to` only), removed (`from` only) or moved between (role, status) counts (both). */
export interface ListChange {
  id: string;
  from?: CountKey;
  to?: CountKey;
}

/** The slot this process's next index write takes: in turn, from a random first one (replicas start apart). */
let turn = Math.floor(Math.random() * LIST_SLOTS);

function nextSlot(): number {
  turn = (turn + 1) % LIST_SLOTS;
  return turn + 1;
}

/**
 * Writes a transaction's user changes into the page index (user-list-buckets.ts), at its end, on its connection:
 * the user rows and their counts commit together or not at all. Answers how many rows it added to the index.
 *
 * The transaction takes one slot (its revision row, held to the commit) and adds its deltas to that slot's count
 * rows only: concurrent writers take different slots, so neither the revision nor the last bucket's counts (where
 * every new UUIDv7 id lands) is a row they queue on. Writers of one slot take turns; taken last in the
 * transaction, after every other lock it holds, the slot waits on no one while held. Each id's bucket is read with
 * a shared locking read (the latest committed, never the transaction's older snapshot): readers share it, and
 * UserListTail, which starts a new bucket, takes the last one exclusively, so an id is always counted in the
 * bucket that holds it at the commit.
 */
export async function applyListChanges(manager: EntityManager, changes: readonly ListChange[]): Promise<number> {
  const moving = changes.filter((c) => !sameKey(c.from, c.to));
  if (moving.length === 0) return 0;
  const mysql = isMysqlFamily(manager.connection);
  const rows = async (sql: string, parameters: unknown[] = []) => (await manager.query(sql, parameters)) as Record<string, unknown>[];

  const slot = nextSlot();
  await manager.query(`UPDATE ${LIST_REVISION_TABLE} SET revision = revision + 1 WHERE id = ?`, [slot]);
  const revision = Number((await rows(`SELECT revision FROM ${LIST_REVISION_TABLE} WHERE id = ?`, [slot]))[0]?.revision);

  const deltas = new Map<string, { start: string; key: CountKey; n: number }>();
  const count = (start: string, key: CountKey, n: number) => {
    const name = `${start}\u0000${key.roleId}\u0000${key.status}`;
    const delta = deltas.get(name) ?? { start, key, n: 0 };
    delta.n += n;
    deltas.set(name, delta);
  };
  const share = mysql ? ' LOCK IN SHARE MODE' : '';
  let added = 0;
  for (const change of [...moving].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    const [bucket] = await rows(`SELECT start_id FROM ${LIST_BUCKETS_TABLE} WHERE start_id <= ? ORDER BY start_id DESC LIMIT 1${share}`, [change.id]);
    if (!bucket) throw new Error(`${LIST_BUCKETS_TABLE} has no first bucket (''): run the migrations`);
    const start = String(bucket.start_id);
    if (change.from) count(start, change.from, -1);
    if (change.to) count(start, change.to, +1);
    if (change.to && !change.from) added++;
  }

  const written = [...deltas.values()].filter((d) => d.n !== 0).sort((a, b) => compare(deltaKey(a), deltaKey(b)));
  if (written.length > 0) {
    const values = written.map(() => '(?, ?, ?, ?, ?, ?)').join(', ');
    const upsert = mysql
      ? 'ON DUPLICATE KEY UPDATE n = n + VALUES(n), revision = VALUES(revision)'
      : 'ON CONFLICT (start_id, role_id, status, slot) DO UPDATE SET n = n + excluded.n, revision = excluded.revision';
    await manager.query(
      `INSERT INTO ${LIST_COUNTS_TABLE} (start_id, role_id, status, slot, n, revision) VALUES ${values} ${upsert}`,
      written.flatMap(({ start, key, n }) => [start, key.roleId, key.status, slot, n, revision]),
    );
  }
  return added;
}

function deltaKey(d: { start: string; key: CountKey }): string {
  return `${d.start}\u0000${d.key.roleId}\u0000${d.key.status}`;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sameKey(a: CountKey | undefined, b: CountKey | undefined): boolean {
  return a !== undefined && b !== undefined && a.roleId === b.roleId && a.status === b.status;
}
