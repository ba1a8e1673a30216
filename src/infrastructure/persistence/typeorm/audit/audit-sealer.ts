import type { DataSource } from 'typeorm';
import type { SqliteWriteQueue } from '../sqlite-write-queue';
import { readChain } from './audit-chain';
import { type AuditRow, chainLink, SELECT_SEALED } from './audit-rows';

export interface AuditSealerDeps {
  dataSource: DataSource;
  sqliteWriteQueue: SqliteWriteQueue;
  /** AUDIT_SEAL_KEY: links are HMACs under it; plain SHA-256 without. */
  sealKey?: string;
  batchSize?: number;
}

/**
 * Links committed entries into the hash chain, after the fact and off the request path: requests only
 * insert (no counter, no lock), and this pass, on whichever replica runs it, takes the chain row
 * `FOR UPDATE`, numbers the entries not yet sealed (in the order of their time, then id) and stores each
 * one's link: H(previous link, seq, every column). Two replicas sealing at once take turns on the chain
 * row; an entry sealed meanwhile (`seq IS NULL` no longer true) rolls the pass back.
 */
export class AuditSealer {
  private readonly batchSize: number;

  constructor(private readonly deps: AuditSealerDeps) {
    this.batchSize = deps.batchSize ?? 500;
  }

  /** Seals until nothing is left; resolves to the entries sealed. */
  async sealAll(): Promise<number> {
    let sealed = 0;
    for (;;) {
      const count = await this.sealBatch();
      sealed += count;
      if (count < this.batchSize) return sealed;
    }
  }

  /** One transaction: up to `batchSize` entries linked on the chain's head. */
  async sealBatch(): Promise<number> {
    const { dataSource, sqliteWriteQueue, sealKey } = this.deps;
    return sqliteWriteQueue.serialize(() =>
      dataSource.transaction(async (manager) => {
        const chain = await readChain(manager, true);
        const rows = (await manager.query(
          `${SELECT_SEALED} WHERE seq IS NULL ORDER BY occurred_at ASC, id ASC LIMIT ${this.batchSize}`,
        )) as AuditRow[];
        let { lastSeq, lastHash } = chain;
        const links: { id: string; seq: number; link: string }[] = [];
        for (const row of rows) {
          const seq = lastSeq + 1;
          const link = chainLink(lastHash, seq, row, sealKey);
          links.push({ id: String(row.id), seq, link });
          lastSeq = seq;
          lastHash = link;
        }
        if (links.length > 0) {
          // One statement for the batch: a CASE per column, keyed by id.
          const cases = (value: (l: (typeof links)[number]) => unknown) => ({
            sql: `CASE id ${links.map(() => 'WHEN ? THEN ?').join(' ')} END`,
            parameters: links.flatMap((l) => [l.id, value(l)]),
          });
          const seqCase = cases((l) => l.seq);
          const hashCase = cases((l) => l.link);
          const result = await manager.queryRunner!.query(
            `UPDATE audit_events SET seq = ${seqCase.sql}, chain_hash = ${hashCase.sql} WHERE id IN (${links.map(() => '?').join(', ')}) AND seq IS NULL`,
            [...seqCase.parameters, ...hashCase.parameters, ...links.map((l) => l.id)],
            true,
          );
          if ((result.affected ?? 0) !== links.length) throw new Error('audit entries were sealed by another pass meanwhile');
        }
        if (rows.length > 0) await manager.query('UPDATE audit_chain SET last_seq = ?, last_hash = ? WHERE id = 1', [lastSeq, lastHash]);
        return rows.length;
      }),
    );
  }
}
