import type { DataSource, EntityManager } from 'typeorm';
import { isMysqlFamily } from '../data-source';
import { toAuditEventView } from '../../../../application/audit/audit-event.view';
import { AUDIT_EVENT_TYPE } from '../../../messaging/cloud-event';
import { toSqlDatetime } from '../../../messaging/outbox-claims';
import type { SqliteWriteQueue } from '../sqlite-write-queue';
import { type ChainState, entrySealsSeal, headSeal, readChain } from './audit-chain';
import { type AuditRow, chainLink, entrySeal, LATE_LINK, linkKind, REFUSED_LINK, SELECT_SEALED, storedEntryValues, toEntry } from './audit-rows';

const OUTBOX_HEAD = 'INSERT INTO outbox_events (id, aggregate_id, type, payload, occurred_at, published_at, attempts, request_id, aggregate_sequence) VALUES ';
const OUTBOX_ROW = '(?, ?, ?, ?, ?, NULL, 0, ?, 1)';

export interface AuditSealerDeps {
  dataSource: DataSource;
  sqliteWriteQueue: SqliteWriteQueue;
  /** AUDIT_SEAL_KEY: links are HMACs under it; plain SHA-256 without. */
  sealKey?: string;
  batchSize?: number;
  /** After a pass committed events for the audit topic: the relay's nudge (CommitSignal, kind `audit`). */
  onEventsCommitted?: () => void;
  /** After a pass refused entries that carry no valid seal (AUDIT_SEAL_KEY set): their ids. */
  onRefused?: (ids: readonly string[]) => void;
  /** When `entry_seals_from` was found cleared or unsealed on a trail whose entries carry seals: reset behind the service. */
  onWindowReset?: () => void;
  /** The sealer's clock (ms): when entry seals become required. */
  now?: () => number;
}

/**
 * How long after the first pass with AUDIT_SEAL_KEY entries without a seal are still linked: those that replicas of
 * the version before (which seal none) write while a rolling upgrade replaces them.
 */
export const ENTRY_SEALS_GRACE_MS = 10 * 60_000;

/**
 * The chain's head is behind one this process saw: entries were cut from its end behind the service's back, and the
 * head moved back onto a surviving entry (which needs no key), or a backup was restored. This replica seals nothing
 * more until it restarts, so new entries stay unsealed and `audit:verify` keeps naming them.
 */
export class AuditChainCutError extends Error {
  constructor(seen: { seq: number }, head: { seq: number }) {
    super(`the audit chain's head is #${head.seq}, behind #${seen.seq} that this replica saw: its end was cut, or a backup restored`);
  }
}

/**
 * With AUDIT_SEAL_KEY, the chain's head carries no valid seal (headSeal) and stands on an entry linked by a sealer that
 * seals its heads, or on no entry's link: it was moved there by hand, the entries after it cleared so that they are
 * linked again without the ones deleted (review S). Every replica refuses to extend it, at every pass, until an operator
 * restores the trail; `audit:verify` names it (`head_moved`).
 */
export class AuditHeadMovedError extends Error {
  constructor(head: { seq: number }, why: string) {
    super(`the audit chain's head (#${head.seq}) is not sealed as the sealer seals it, and ${why}: it was moved back by hand`);
  }
}

/**
 * How long an entry may wait to be linked when the head it would follow carries no seal (the first keyed pass of this
 * version, a replica of the version before extending the head): older ones are marked LATE_LINK, not linked, as they
 * may be entries linked before, cleared behind a head moved back onto a legacy entry; `audit:verify` names them.
 */
export const UNSEALED_HEAD_GRACE_MS = 10 * 60_000;

/**
 * The sealer's statements on `audit_events`. On MySQL and MariaDB each names its index: the entries not sealed yet are
 * found by the unique index on `seq` (NULL until sealed), and written by primary key. Left to choose, MariaDB read
 * a backlog of more than about 10 000 entries by walking the time index from the trail's oldest entry (the backlog
 * is always the newest): 3.9 s a batch of 500 at 1.5 M entries, against 0.04 s (0.13 s with 60 000 waiting), so a
 * backlog outgrew the sealer and it fell behind for good (review of 2026-12-07, admin work at scale). An update by id
 * that went by the `seq` index instead locked the range of unsealed entries and waited on any not committed yet.
 */
export function sealerStatements(dataSource: DataSource, batchSize: number) {
  const mysql = isMysqlFamily(dataSource);
  const unsealed = mysql ? ' FORCE INDEX (uq_audit_events_seq)' : '';
  const byId = `audit_events${mysql ? ' FORCE INDEX (PRIMARY)' : ''}`;
  const ids = (count: number) => Array.from({ length: count }, () => '?').join(', ');
  return {
    /** A head not sealed (see headKind): the unsealed entries older than the grace, marked late. */
    markLate: `UPDATE audit_events${unsealed} SET chain_hash = '${LATE_LINK}' WHERE seq IS NULL AND chain_hash IS NULL AND occurred_at < ?`,
    /** The next entries to link, oldest first. */
    batch: `${SELECT_SEALED}${unsealed} WHERE seq IS NULL AND (chain_hash IS NULL OR chain_hash NOT IN ('${REFUSED_LINK}', '${LATE_LINK}')) ORDER BY occurred_at ASC, id ASC LIMIT ${batchSize}`,
    /** Links `count` entries: `seq` and `chain_hash` set by CASE expressions keyed by id. */
    link: (count: number, seqCase: string, hashCase: string) => `UPDATE ${byId} SET seq = ${seqCase}, chain_hash = ${hashCase} WHERE id IN (${ids(count)}) AND seq IS NULL`,
    /** Refuses `count` entries whose entry seal is not the key's. */
    refuse: (count: number) => `UPDATE ${byId} SET chain_hash = '${REFUSED_LINK}' WHERE id IN (${ids(count)}) AND seq IS NULL`,
  };
}

/** The chain's head as the sealer finds it (AuditSealer.headKind). */
type HeadKind = { kind: 'sealed' } | { kind: 'start' } | { kind: 'legacy'; linkedEntryAt: number | null };

/**
 * Links committed entries into the hash chain, after the fact and off the request path: requests only
 * insert (no counter, no lock), and this pass, on whichever replica runs it, takes the chain row
 * `FOR UPDATE`, numbers the entries not yet sealed (in the order of their time, then id) and stores each
 * one's link: H(previous link, seq, every column). Two replicas sealing at once take turns on the chain
 * row; an entry sealed meanwhile (`seq IS NULL` no longer true) rolls the pass back.
 *
 * The same transaction puts each entry's event for the audit topic in the outbox (`AuditEventRecorded`, the entry
 * as the API answers it, read from the row it links): once per entry, as an entry is sealed once, and never for an
 * entry whose change rolled back, as only committed rows are read. A request writes the entry alone.
 */
export class AuditSealer {
  private readonly batchSize: number;
  private readonly statements: ReturnType<typeof sealerStatements>;
  /** The furthest head this process read or wrote: a head found behind it (or another link at its place) is a cut. */
  private seen: { seq: number; hash: string } | null = null;
  private cut: AuditChainCutError | null = null;

  constructor(private readonly deps: AuditSealerDeps) {
    this.batchSize = deps.batchSize ?? 500;
    this.statements = sealerStatements(deps.dataSource, this.batchSize);
  }

  /** The chain's head as this process last read or wrote it; null before its first pass. */
  head(): { seq: number; hash: string } | null {
    return this.seen;
  }

  /**
   * Seals until nothing is left, or until `goOn` says stop (checked between batches: a stopping process leaves the rest
   * to the next pass, its own after a restart or another replica's); resolves to the entries sealed (linked; refused
   * ones are not counted).
   */
  async sealAll(goOn: () => boolean = () => true): Promise<number> {
    let sealed = 0;
    for (;;) {
      const { read, linked } = await this.sealBatch();
      sealed += linked;
      if (read < this.batchSize || !goOn()) return sealed;
    }
  }

  /** One transaction: up to `batchSize` entries read, and linked on the chain's head (or refused). */
  private async sealBatch(): Promise<{ read: number; linked: number }> {
    const { dataSource, sqliteWriteQueue, sealKey } = this.deps;
    const { statements } = this;
    const sealed = await sqliteWriteQueue.serialize(() =>
      dataSource.transaction(async (manager) => {
        const chain = await readChain(manager, true);
        this.checkNotCut(chain);
        const head: HeadKind = sealKey ? await this.headKind(manager, chain, sealKey) : { kind: 'sealed' };
        const headWasSealed = head.kind === 'sealed';
        if (!headWasSealed) {
          const before = (this.deps.now ?? Date.now)() - UNSEALED_HEAD_GRACE_MS;
          await manager.query(statements.markLate, [before]);
        }
        const rows = (await manager.query(statements.batch)) as AuditRow[];
        const genuine = sealKey ? await this.genuineEntry(manager, chain, sealKey, this.olderSealerAt(head, chain)) : () => true;
        let { lastSeq, lastHash } = chain;
        const links: { id: string; seq: number; link: string }[] = [];
        const refused: string[] = [];
        const linked: AuditRow[] = [];
        for (const row of rows) {
          if (!genuine(row)) {
            refused.push(String(row.id));
            continue;
          }
          linked.push(row);
          const seq = lastSeq + 1;
          const link = chainLink(lastHash, seq, row, sealKey, true);
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
            statements.link(links.length, seqCase.sql, hashCase.sql),
            [...seqCase.parameters, ...hashCase.parameters, ...links.map((l) => l.id)],
            true,
          );
          if ((result.affected ?? 0) !== links.length) throw new Error('audit entries were sealed by another pass meanwhile');
        }
        if (refused.length > 0) {
          // Kept, never linked nor put on the topic: `audit:verify` names them, the API lists them nowhere.
          await manager.query(statements.refuse(refused.length), refused);
        }
        if (linked.length > 0 || !headWasSealed) {
          const seal = sealKey ? headSeal(lastSeq, lastHash, sealKey) : null;
          await manager.query('UPDATE audit_chain SET last_seq = ?, last_hash = ?, head_seal = ? WHERE id = 1', [lastSeq, lastHash, seal]);
        }
        if (linked.length > 0) await enqueueEvents(manager, linked, links);
        return { count: rows.length, linked: linked.length, refused, head: { seq: lastSeq, hash: lastHash } };
      }),
    );
    this.seen = sealed.head;
    if (sealed.linked > 0) this.deps.onEventsCommitted?.();
    if (sealed.refused.length > 0) this.deps.onRefused?.(sealed.refused);
    return { read: sealed.count, linked: sealed.linked };
  }

  /**
   * When a sealer of a version before this one (one whose replicas may write entries without their own seal) last
   * linked for certain, or null when nothing says one runs: the head stands on its link, made with the key. Now, when
   * the head moved on by such links since this process's last pass (a rolling upgrade: review of 2026-12-07). On a
   * process's first pass, the time of the entry that link is for, no later than now: the older replicas may have
   * stopped just before this one started (a rollback ended by an upgrade, with `Recreate` or rolling), leaving entries
   * they wrote in their last second for this pass to link (rollback review of 2026-12-07). The time is the entry's own,
   * which its link covers, so a head moved back onto an older legacy entry opens nothing its time does not.
   */
  private olderSealerAt(head: HeadKind, chain: ChainState): number | null {
    if (head.kind !== 'legacy' || head.linkedEntryAt === null) return null;
    const now = (this.deps.now ?? Date.now)();
    return this.seen !== null && chain.lastSeq > this.seen.seq ? now : Math.min(head.linkedEntryAt, now);
  }

  /**
   * With AUDIT_SEAL_KEY, the head: `sealed`, it carries its seal; or it carries none but may be extended: `start`, it is
   * the checkpoint or the chain's start, `legacy`, it stands on an entry a legacy sealer linked (the version before, in a
   * rolling upgrade or at this version's first pass, `linkedEntryAt` that entry's time; or a sealer without the key,
   * `linkedEntryAt` null). Throws AuditHeadMovedError when it stands on an entry whose link says its sealer sealed
   * heads, or on no entry's link: moved by hand.
   */
  private async headKind(manager: EntityManager, chain: ChainState, key: string): Promise<HeadKind> {
    if (chain.headSeal === headSeal(chain.lastSeq, chain.lastHash, key)) return { kind: 'sealed' };
    if (chain.lastSeq === chain.floorSeq) return { kind: 'start' };
    const [row] = (await manager.query(`${SELECT_SEALED} WHERE seq = ?`, [chain.lastSeq])) as AuditRow[];
    const [before] =
      chain.lastSeq - 1 === chain.floorSeq ? [{ chain_hash: chain.floorHash }] : ((await manager.query('SELECT chain_hash FROM audit_events WHERE seq = ?', [chain.lastSeq - 1])) as { chain_hash: string }[]);
    const previous = String(before?.chain_hash);
    const kind = row && before && row.chain_hash === chain.lastHash ? linkKind(previous, chain.lastSeq, row, key) : null;
    // A link without the key (the trail kept before AUDIT_SEAL_KEY was set) is extended as the version before's is; the
    // verifier, which checks every link under the key, names those entries all the same.
    if (kind === 'legacy') return { kind: 'legacy', linkedEntryAt: Number(row!.occurred_at) };
    if (row && before && kind === null && chainLink(previous, chain.lastSeq, row) === chain.lastHash) return { kind: 'legacy', linkedEntryAt: null };
    throw new AuditHeadMovedError({ seq: chain.lastSeq }, kind === 'head-sealed' ? 'its entry was linked by a sealer that seals its heads' : 'it is not the link of a verifying entry');
  }

  /**
   * With AUDIT_SEAL_KEY: whether a row carries the seal the service writes with every entry (entrySeal), and no link
   * of its own (a genuine entry has none before this pass). A row without a seal is linked only until
   * `entry_seals_from`: the first keyed pass sets it ENTRY_SEALS_GRACE_MS ahead (an upgrade's old replicas write none
   * meanwhile), or to that pass itself on a chain that has linked nothing yet (a new trail has no old replicas), and
   * seals it with the key. Found cleared, or with a seal that does not verify, while linked entries carry seals (so
   * the window was set before): someone without the key reset it to open it again; seals are required at once. Kept
   * open until ENTRY_SEALS_GRACE_MS after a sealer of a version before this one last linked (`olderSealerAt`): a
   * rollout, or a rollback, that outlasts the window does not turn its old replicas' entries into forgeries.
   */
  private async genuineEntry(manager: EntityManager, chain: ChainState, key: string, olderSealerAt: number | null): Promise<(row: AuditRow) => boolean> {
    const now = (this.deps.now ?? Date.now)();
    let from = chain.entrySealsFrom;
    if (from === null || chain.entrySealsSeal !== entrySealsSeal(from, key)) {
      const [sealedBefore] = (await manager.query(`SELECT id FROM audit_events WHERE seq IS NOT NULL AND entry_seal IS NOT NULL LIMIT 1`)) as unknown[];
      if (sealedBefore) this.deps.onWindowReset?.();
      from = sealedBefore || chain.lastSeq === 0 ? now : now + ENTRY_SEALS_GRACE_MS;
      await manager.query('UPDATE audit_chain SET entry_seals_from = ?, entry_seals_seal = ? WHERE id = 1', [from, entrySealsSeal(from, key)]);
    } else if (olderSealerAt !== null && from < olderSealerAt + ENTRY_SEALS_GRACE_MS) {
      // An older replica's sealer linked entries (a link only the key makes), so its replica was alive then and wrote
      // entries without a seal; they stay genuine until the window's length after it.
      from = olderSealerAt + ENTRY_SEALS_GRACE_MS;
      await manager.query('UPDATE audit_chain SET entry_seals_from = ?, entry_seals_seal = ? WHERE id = 1', [from, entrySealsSeal(from, key)]);
    }
    const unsealedAccepted = now < from;
    return (row) =>
      row.chain_hash === null && (row.entry_seal === null ? unsealedAccepted : row.entry_seal === entrySeal(storedEntryValues(row), key));
  }

  /** Throws AuditChainCutError when the head is behind the furthest one seen, or another link stands at its place. */
  private checkNotCut(chain: { lastSeq: number; lastHash: string }): void {
    if (this.cut) throw this.cut;
    const seen = this.seen;
    if (!seen || chain.lastSeq > seen.seq) return;
    if (chain.lastSeq < seen.seq || chain.lastHash !== seen.hash) {
      this.cut = new AuditChainCutError(seen, { seq: chain.lastSeq });
      throw this.cut;
    }
  }
}

/**
 * Each row's event for the audit topic, into the outbox: an aggregate of its own (its id, sequence 1), so no order or
 * lock between entries. The entry as the API answers it, and its place in the chain (`chain`: `seq` and `link`), so
 * the topic is a copy of the chain outside the database: a consumer sees a gap in `seq`, and a head in `audit_chain`
 * behind the topic's is a cut.
 */
async function enqueueEvents(manager: EntityManager, rows: readonly AuditRow[], links: readonly { id: string; seq: number; link: string }[]): Promise<void> {
  const placeOf = new Map(links.map((l) => [l.id, { seq: l.seq, link: l.link }]));
  const entries = rows.map(toEntry);
  await manager.query(
    OUTBOX_HEAD + new Array<string>(entries.length).fill(OUTBOX_ROW).join(', '),
    entries.flatMap((entry) => [
      entry.id,
      entry.id,
      AUDIT_EVENT_TYPE,
      JSON.stringify({ ...toAuditEventView(entry), chain: placeOf.get(entry.id) }),
      toSqlDatetime(new Date(entry.occurredAt)),
      entry.requestId,
    ]),
  );
}
