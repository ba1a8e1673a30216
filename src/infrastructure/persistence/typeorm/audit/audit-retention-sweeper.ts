import type { DataSource } from 'typeorm';
import type { Clock } from '../../../../application/ports/clock.port';
import type { SqliteWriteQueue } from '../sqlite-write-queue';
import { checkpointSeal, readChain } from './audit-chain';

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
 * Removes sealed entries older than the retention from the start of the chain, a batch per transaction,
 * and moves the checkpoint (`floor_seq`, `floor_hash`: the last removed entry's place and link) in the
 * same transaction, sealed (`floor_seal`, checkpointSeal): verification starts there, so what remains still verifies,
 * and a checkpoint moved by hand does not. It cuts only a leading
 * run of old entries in chain order; an old entry sealed after a newer one waits for it. Never an
 * unsealed entry.
 */
export class AuditRetentionSweeper {
  private readonly batchSize: number;
  private readonly maxBatches: number;

  constructor(private readonly deps: AuditRetentionSweeperDeps) {
    this.batchSize = deps.batchSize ?? 1000;
    this.maxBatches = deps.maxBatchesPerSweep ?? 100;
  }

  /** Resolves to the entries removed. */
  async sweep(): Promise<number> {
    let removed = 0;
    for (let batch = 0; batch < this.maxBatches; batch++) {
      const count = await this.sweepBatch();
      removed += count;
      if (count < this.batchSize) break;
    }
    return removed;
  }

  private sweepBatch(): Promise<number> {
    const { dataSource, sqliteWriteQueue, clock, retentionSeconds } = this.deps;
    const cutoff = clock.now().getTime() - retentionSeconds * 1000;
    return sqliteWriteQueue.serialize(() =>
      dataSource.transaction(async (manager) => {
        const chain = await readChain(manager, true);
        const rows = (await manager.query(
          `SELECT seq, occurred_at, chain_hash FROM audit_events WHERE seq > ? ORDER BY seq ASC LIMIT ${this.batchSize}`,
          [chain.floorSeq],
        )) as { seq: number | string; occurred_at: number | string; chain_hash: string }[];
        let cut: { seq: number; hash: string } | null = null;
        for (const row of rows) {
          if (Number(row.occurred_at) >= cutoff) break;
          cut = { seq: Number(row.seq), hash: row.chain_hash };
        }
        if (!cut) return 0;
        await manager.query('DELETE FROM audit_events WHERE seq > ? AND seq <= ?', [chain.floorSeq, cut.seq]);
        await manager.query('UPDATE audit_chain SET floor_seq = ?, floor_hash = ?, floor_seal = ? WHERE id = 1', [cut.seq, cut.hash, checkpointSeal(cut.seq, cut.hash, this.deps.sealKey)]);
        return cut.seq - chain.floorSeq;
      }),
    );
  }
}
