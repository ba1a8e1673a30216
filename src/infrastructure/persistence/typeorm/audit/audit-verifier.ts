import type { DataSource } from 'typeorm';
import type { SqliteWriteQueue } from '../sqlite-write-queue';
import { type ChainState, checkpointSeal, entrySealsSeal, headSeal, readChain } from './audit-chain';
import { type AuditRow, LATE_LINK, linkKind, SELECT_SEALED } from './audit-rows';

export interface AuditBreak {
  /** The first entry that does not verify, or the place where one is missing. */
  seq: number;
  id: string | null;
  reason: 'edited' | 'missing' | 'inserted' | 'head_moved' | 'unsealed' | 'checkpoint_moved' | 'forged' | 'seal_window_moved' | 'late';
  message: string;
}

export interface AuditVerification {
  ok: boolean;
  /** Entries whose link was checked. */
  checked: number;
  /** Entries not sealed yet (the sealer's lag); not proof of anything until sealed. */
  unsealed: number;
  firstBreak?: AuditBreak;
}

export interface AuditVerifierDeps {
  dataSource: DataSource;
  sqliteWriteQueue: SqliteWriteQueue;
  sealKey?: string;
  /** An entry left unsealed longer than this is reported (the sealer should have linked it): ms. */
  sealGraceMs?: number;
  now?: () => number;
}

const BATCH = 1000;

/**
 * Walks the chain from the retention checkpoint (`floor_*`) to the head in `seq` order, recomputing each
 * link: an edited row fails its own link, a deleted one leaves a gap in `seq`, an inserted one either has
 * no place in the numbering or (unsealed) outlives the sealer's grace, and a cut tail no longer reaches
 * the head the chain row holds. Names the first entry that breaks. A sealer linking meanwhile (entries written while
 * it runs) is no break: the head is read again and walked to.
 */
export class AuditVerifier {
  constructor(private readonly deps: AuditVerifierDeps) {}

  async verify(): Promise<AuditVerification> {
    const { dataSource, sqliteWriteQueue, sealKey } = this.deps;
    const read = <T>(sql: string, parameters: unknown[] = []) => sqliteWriteQueue.serialize(() => dataSource.query(sql, parameters) as Promise<T>);
    const chain = await sqliteWriteQueue.serialize(() => readChain(dataSource.manager));
    let expected = chain.floorSeq + 1;
    let previous = chain.floorHash;
    let checked = 0;
    /** Which sealer linked the last entry walked (linkKind); null while none was. */
    let lastKind: 'head-sealed' | 'legacy' | null = null;
    const broken = (found: AuditBreak): AuditVerification => ({ ok: false, checked, unsealed: 0, firstBreak: found });
    // A checkpoint past the chain's start must carry its seal: else the entries before it were deleted, and an
    // existing link copied into it, by someone who is not the retention sweeper.
    if (chain.floorSeq > 0 && chain.floorSeal !== checkpointSeal(chain.floorSeq, chain.floorHash, sealKey)) {
      return broken({
        seq: chain.floorSeq,
        id: null,
        reason: 'checkpoint_moved',
        message: `the retention checkpoint (#${chain.floorSeq}) is not sealed as the sweeper seals it: moved by hand, with the entries before it deleted (or by a sweeper of a version before 2026-12-05)`,
      });
    }
    /** Walks on from `expected` to the last linked entry: the first break found, or null. */
    const walk = async (): Promise<AuditBreak | null> => {
      for (;;) {
        const rows = await read<AuditRow[]>(`${SELECT_SEALED} WHERE seq >= ? ORDER BY seq ASC LIMIT ${BATCH}`, [expected]);
        for (const row of rows) {
          const seq = Number(row.seq);
          const id = String(row.id);
          if (seq !== expected) {
            return { seq: expected, id, reason: 'missing', message: `entry #${expected} is missing: the chain jumps to #${seq} (${id})` };
          }
          lastKind = linkKind(previous, seq, row, sealKey);
          if (!lastKind) {
            return { seq, id, reason: 'edited', message: `entry #${seq} (${id}) does not match its link: edited, or inserted into the chain` };
          }
          previous = String(row.chain_hash);
          expected += 1;
          checked += 1;
        }
        if (rows.length < BATCH) break;
      }
      return null;
    };
    // A sealer links entries while the walk runs (a live service): read the head again once the walk ends, and walk on
    // to it, until it stands still where the entries end (review S: 1 verify in 20 said head_moved on a live service).
    let head: ChainState = chain;
    for (let round = 0; ; round += 1) {
      const found = await walk();
      if (found) return broken(found);
      if ((expected - 1 === head.lastSeq && previous === head.lastHash) || round === 10) break;
      const again = await sqliteWriteQueue.serialize(() => readChain(dataSource.manager));
      const moved = again.lastSeq !== head.lastSeq || again.lastHash !== head.lastHash;
      head = again;
      if (!moved) break;
    }
    const last = expected - 1;
    if (last < head.lastSeq) {
      return broken({ seq: expected, id: null, reason: 'missing', message: `entries #${expected} to #${head.lastSeq} are missing (the chain's head is #${head.lastSeq})` });
    }
    if (last > head.lastSeq || previous !== head.lastHash) {
      return broken({ seq: last, id: null, reason: 'head_moved', message: `the chain's head (#${head.lastSeq}) is not where its entries end (#${last})` });
    }
    // Moved back onto an entry whose sealer seals its heads (its link says so), without the seal: by hand (review S).
    if (sealKey && last > chain.floorSeq && lastKind === 'head-sealed' && head.headSeal !== headSeal(head.lastSeq, head.lastHash, sealKey)) {
      return broken({
        seq: last,
        id: null,
        reason: 'head_moved',
        message: `the chain's head (#${head.lastSeq}) is not sealed as the sealer seals it: moved back by hand, the entries after it deleted or cleared`,
      });
    }
    const [below] = await read<{ n: number | string }[]>('SELECT COUNT(*) AS n FROM audit_events WHERE seq IS NOT NULL AND seq <= ?', [chain.floorSeq]);
    if (Number(below?.n ?? 0) > 0) {
      return broken({ seq: chain.floorSeq, id: null, reason: 'inserted', message: `entries numbered at or below the retention checkpoint (#${chain.floorSeq}) exist` });
    }
    // When entries' seals became required: moved or cleared by hand, the window for entries without one reopened.
    if (sealKey && chain.entrySealsFrom !== null && chain.entrySealsSeal !== entrySealsSeal(chain.entrySealsFrom, sealKey)) {
      return broken({
        seq: last,
        id: null,
        reason: 'seal_window_moved',
        message: 'audit_chain.entry_seals_from is not sealed as the sealer seals it: moved or cleared by hand, to have entries without a seal linked',
      });
    }
    // Refused by the sealer, or given a link with no place in the chain by hand: either way not the service's.
    const [forged] = await read<{ id: string; chain_hash: string }[]>('SELECT id, chain_hash FROM audit_events WHERE seq IS NULL AND chain_hash IS NOT NULL ORDER BY occurred_at, id LIMIT 1');
    if (forged?.chain_hash === LATE_LINK) {
      const message = `entry ${forged.id} waited too long to be linked behind a head without its seal: an entry linked before and cleared behind a head moved back, or a sealer down for long; never linked`;
      return { ok: false, checked, unsealed: 0, firstBreak: { seq: last + 1, id: forged.id, reason: 'late', message } };
    }
    if (forged) {
      const message = `entry ${forged.id} carries no valid seal of the service (AUDIT_SEAL_KEY): inserted behind its back, so never linked`;
      return { ok: false, checked, unsealed: 0, firstBreak: { seq: last + 1, id: forged.id, reason: 'forged', message } };
    }
    const grace = this.deps.sealGraceMs ?? 10 * 60_000;
    const now = (this.deps.now ?? Date.now)();
    const [unsealed] = await read<{ n: number | string }[]>('SELECT COUNT(*) AS n FROM audit_events WHERE seq IS NULL AND chain_hash IS NULL');
    const pending = Number(unsealed?.n ?? 0);
    const [stale] = pending === 0 ? [] : await read<{ id: string }[]>('SELECT id FROM audit_events WHERE seq IS NULL AND chain_hash IS NULL AND occurred_at < ? ORDER BY occurred_at, id LIMIT 1', [now - grace]);
    if (stale) {
      const message = `entry ${stale.id} is older than the sealer's grace and not in the chain: inserted behind its back, or the sealer is not running`;
      return { ok: false, checked, unsealed: pending, firstBreak: { seq: last + 1, id: stale.id, reason: 'unsealed', message } };
    }
    return { ok: true, checked, unsealed: pending };
  }
}
