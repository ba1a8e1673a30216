import { createHash, createHmac } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { isMysqlFamily } from '../data-source';

/** The one row of `audit_chain`: the chain's head, and the checkpoint the retention sweeper left at its cut. */
export interface ChainState {
  lastSeq: number;
  lastHash: string;
  floorSeq: number;
  floorHash: string;
  /** The checkpoint's seal (checkpointSeal); null while the checkpoint is the chain's start. */
  floorSeal: string | null;
  /** From when (ms) an entry must carry its seal to be linked (AuditSealer); null until a pass with AUDIT_SEAL_KEY set it. */
  entrySealsFrom: number | null;
  /** entrySealsFrom's seal (entrySealsSeal), so it cannot be moved or cleared without the key. */
  entrySealsSeal: string | null;
  /** The head's seal (headSeal) as the sealer of this version leaves it with AUDIT_SEAL_KEY; null before its first keyed pass. */
  headSeal: string | null;
}

/**
 * The seal of the chain's head: HMAC under AUDIT_SEAL_KEY of its place and link, written with every move of the head.
 * A head moved back onto an earlier entry (that entry's link copied into it, which needs no key) does not carry it.
 */
export function headSeal(seq: number, link: string, key: string): string {
  return createHmac('sha256', key).update(JSON.stringify(['head', seq, link]), 'utf8').digest('hex');
}

/** The seal of `entry_seals_from`: HMAC under AUDIT_SEAL_KEY of its value. */
export function entrySealsSeal(from: number, key: string): string {
  return createHmac('sha256', key).update(JSON.stringify(['entry_seals_from', from]), 'utf8').digest('hex');
}

/**
 * The retention checkpoint's seal: H(`floor`, its place, its link), an HMAC under AUDIT_SEAL_KEY when set. With the
 * key, a checkpoint moved by hand (an existing entry's link copied into it, the entries before it deleted) has no
 * valid seal; one moved back to an earlier real checkpoint leaves a gap before the first entry left.
 */
export function checkpointSeal(floorSeq: number, floorHash: string, key?: string): string {
  return (key ? createHmac('sha256', key) : createHash('sha256')).update(JSON.stringify(['floor', floorSeq, floorHash]), 'utf8').digest('hex');
}

/** Reads the chain row; `forUpdate` holds it to the end of the transaction (MySQL/MariaDB; SQLite's writes take turns). */
export async function readChain(manager: EntityManager, forUpdate = false): Promise<ChainState> {
  const lock = forUpdate && isMysqlFamily(manager.connection) ? ' FOR UPDATE' : '';
  const [row] = (await manager.query(`SELECT last_seq, last_hash, floor_seq, floor_hash, floor_seal, entry_seals_from, entry_seals_seal, head_seal FROM audit_chain WHERE id = 1${lock}`)) as {
    last_seq: number | string;
    last_hash: string;
    floor_seq: number | string;
    floor_hash: string;
    floor_seal: string | null;
    entry_seals_from: number | string | null;
    entry_seals_seal: string | null;
    head_seal: string | null;
  }[];
  if (!row) throw new Error('audit_chain has no row: run the migrations');
  return { lastSeq: Number(row.last_seq), lastHash: row.last_hash, floorSeq: Number(row.floor_seq), floorHash: row.floor_hash, floorSeal: row.floor_seal ?? null,
    entrySealsFrom: row.entry_seals_from === null || row.entry_seals_from === undefined ? null : Number(row.entry_seals_from),
    entrySealsSeal: row.entry_seals_seal ?? null,
    headSeal: row.head_seal ?? null,
  };
}
