import type { EntityManager } from 'typeorm';
import { requestContext } from '../../observability/request-context';

/** Subjects are spread over this many counters: no single hot row, and one small read for all of them. */
export const REVOCATION_SHARDS = 64;

/** The counter a subject's changes move: FNV-1a of its id (a UUID), the same in every process. */
export function revocationShardOf(subjectId: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < subjectId.length; i++) {
    hash ^= subjectId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % REVOCATION_SHARDS;
}

/** What every replica polls: each shard's epoch, and the role catalogue's revision, read in one statement. */
export interface RevocationSnapshot {
  epochs: readonly number[];
  rolesRevision: number;
}

/**
 * Moves the subject's shard on, in the transaction of the change (`manager` is the unit of work's, or the
 * repository's own transaction): committed with it, never without it. A request that does this is marked, so
 * that its answer waits out the revocation window (revocation-watch.ts) and its own later reads skip the caches.
 */
export async function bumpRevocationEpoch(manager: EntityManager, subjectId: string): Promise<void> {
  await manager.query('UPDATE revocation_epochs SET epoch = epoch + 1 WHERE shard = ?', [revocationShardOf(subjectId)]);
  markRequestRevoking();
}

/** Marks the current request as one that changed who may do what (a role change moves the catalogue's revision). */
export function markRequestRevoking(): void {
  const context = requestContext.getStore();
  if (context) context.revoking = true;
}

/** True while the current request has moved an epoch on (see bumpRevocationEpoch). */
export function requestIsRevoking(): boolean {
  return requestContext.getStore()?.revoking === true;
}

const SNAPSHOT_SQL = 'SELECT shard, epoch FROM revocation_epochs UNION ALL SELECT -1, revision FROM role_catalogue WHERE id = 1';

export async function readRevocationSnapshot(manager: EntityManager): Promise<RevocationSnapshot> {
  const rows = (await manager.query(SNAPSHOT_SQL)) as { shard: number | string; epoch: number | string }[];
  const epochs = new Array<number>(REVOCATION_SHARDS).fill(0);
  let rolesRevision = 0;
  for (const row of rows) {
    const shard = Number(row.shard);
    if (shard === -1) rolesRevision = Number(row.epoch);
    else if (shard >= 0 && shard < REVOCATION_SHARDS) epochs[shard] = Number(row.epoch);
  }
  return { epochs, rolesRevision };
}
