import type { DataSource } from 'typeorm';
import type { Clock } from '../../../../application/ports/clock.port';
import type { SqliteWriteQueue } from '../sqlite-write-queue';
import { checkpointSeal, readChain } from './audit-chain';
import { type AuditRow, linkKind, SELECT_SEALED } from './audit-rows';

export interface AuditRetentionSweeperDeps {
  dataSource: DataSource;
  sqliteWriteQueue: SqliteWriteQueue;
  clock: Clock;
  /** AUDIT_SEAL_KEY: the checkpoint's seal is an HMAC under it (checkpointSeal). */
  sealKey?: string;
  /** AUDIT_RETENTION, in seconds. */
  retentionSeconds: number;
  batchSize?: number;
  maxBatchesPerSweep?: number;
}

/**
 * The sweeper found the start of the chain broken (an entry that fails its link, a gap, or a checkpoint not sealed as
 * the sweeper seals it) and removed nothing from there on: removing it would erase the evidence, and seal a checkpoint
 * over it. `audit:verify` names the break.
 */
export class AuditTrailBrokenError extends Error {}

/** What a sweep did: the entries removed, whether it stopped at its cap with more past the retention, and what held it. */
export interface AuditSweepReport {
  removed: number;
  /** It stopped at `maxBatchesPerSweep` full batches: entries past the retention may be left for the next. */
  capped: boolean;
  /**
   * The entry it stopped at, when that one is dated ahead of this clock by more than a minute while entries after it
   * in the chain are past the retention: a clock that ran ahead wrote it, and the sweep cuts nothing past it until then.
   */
  heldBy?: { seq: number; occurredAt: Date };
}

/** How far ahead of the sweeper's clock an entry's time may be before it is reported as holding the sweep. */
const CLOCK_AHEAD_MS = 60_000;

/**
 * Removes sealed entries older than the retention from the start of the chain, a batch per transaction,
 * and moves the checkpoint (`floor_seq`, `floor_hash`: the last removed entry's place and link) in the
 * same transaction, sealed (`floor_seal`, checkpointSeal): verification starts there, so what remains still verifies,
 * and a checkpoint moved by hand does not. It cuts only a leading
 * run of old entries in chain order; an old entry sealed after a newer one waits for it. Never an
 * unsealed entry, and never one whose link does not verify from the checkpoint: backdating entries (their
 * `occurred_at` edited) would otherwise have them swept, and the edit with them, under a valid checkpoint seal.
 */
export class AuditRetentionSweeper {
  private readonly batchSize: number;
  private readonly maxBatches: number;

  constructor(private readonly deps: AuditRetentionSweeperDeps) {
    this.batchSize = deps.batchSize ?? 1000;
    this.maxBatches = deps.maxBatchesPerSweep ?? 100;
  }

  /** A sweep, and what it did (AuditSweepReport). */
  async sweep(): Promise<AuditSweepReport> {
    let removed = 0;
    for (let batch = 0; batch < this.maxBatches; batch++) {
      const { count, heldBy } = await this.sweepBatch();
      removed += count;
      if (count < this.batchSize) return { removed, capped: false, ...(heldBy ? { heldBy } : {}) };
    }
    return { removed, capped: true };
  }

  private sweepBatch(): Promise<{ count: number; heldBy?: AuditSweepReport['heldBy'] }> {
    const { dataSource, sqliteWriteQueue, clock, retentionSeconds } = this.deps;
    const now = clock.now().getTime();
    const cutoff = now - retentionSeconds * 1000;
    return sqliteWriteQueue.serialize(() =>
      dataSource.transaction(async (manager) => {
        const chain = await readChain(manager, true);
        const { sealKey } = this.deps;
        if (chain.floorSeq > 0 && chain.floorSeal !== checkpointSeal(chain.floorSeq, chain.floorHash, sealKey)) {
          throw new AuditTrailBrokenError(`the retention checkpoint (#${chain.floorSeq}) is not sealed as the sweeper seals it: nothing is swept; run audit:verify`);
        }
        const rows = (await manager.query(`${SELECT_SEALED} WHERE seq > ? ORDER BY seq ASC LIMIT ${this.batchSize}`, [chain.floorSeq])) as AuditRow[];
        let cut: { seq: number; hash: string } | null = null;
        let previous = chain.floorHash;
        let broken: string | null = null;
        let heldBy: AuditSweepReport['heldBy'];
        for (const [index, row] of rows.entries()) {
          if (Number(row.occurred_at) >= cutoff) {
            const ahead = Number(row.occurred_at) > now + CLOCK_AHEAD_MS;
            if (ahead && rows.slice(index + 1).some((after) => Number(after.occurred_at) < cutoff)) heldBy = { seq: Number(row.seq), occurredAt: new Date(Number(row.occurred_at)) };
            break;
          }
          // Each entry cut must verify from the checkpoint: in its place, and matching its link.
          const seq = Number(row.seq);
          const expected: number = (cut?.seq ?? chain.floorSeq) + 1;
          if (seq !== expected || !linkKind(previous, seq, row, sealKey)) {
            broken = `audit entry #${expected} does not verify (edited, deleted or backdated): the sweep stops before it; run audit:verify`;
            break;
          }
          previous = String(row.chain_hash);
          cut = { seq, hash: previous };
        }
        if (!cut) {
          if (broken) throw new AuditTrailBrokenError(broken);
          return { count: 0, heldBy };
        }
        await manager.query('DELETE FROM audit_events WHERE seq > ? AND seq <= ?', [chain.floorSeq, cut.seq]);
        await manager.query('UPDATE audit_chain SET floor_seq = ?, floor_hash = ?, floor_seal = ? WHERE id = 1', [cut.seq, cut.hash, checkpointSeal(cut.seq, cut.hash, this.deps.sealKey)]);
        // What verified goes; a break after it stays for audit:verify to name (reported at the next batch).
        return { count: cut.seq - chain.floorSeq, heldBy };
      }),
    );
  }
}
