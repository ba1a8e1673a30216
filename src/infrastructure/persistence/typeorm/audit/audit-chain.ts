import type { EntityManager } from 'typeorm';
import { isMysqlFamily } from '../data-source';

/** The one row of `audit_chain`: the chain's head, and the checkpoint the retention sweeper left at its cut. */
export interface ChainState {
  lastSeq: number;
  lastHash: string;
  floorSeq: number;
  floorHash: string;
}

/** Reads the chain row; `forUpdate` holds it to the end of the transaction (MySQL/MariaDB; SQLite's writes take turns). */
export async function readChain(manager: EntityManager, forUpdate = false): Promise<ChainState> {
  const lock = forUpdate && isMysqlFamily(manager.connection) ? ' FOR UPDATE' : '';
  const [row] = (await manager.query(`SELECT last_seq, last_hash, floor_seq, floor_hash FROM audit_chain WHERE id = 1${lock}`)) as {
    last_seq: number | string;
    last_hash: string;
    floor_seq: number | string;
    floor_hash: string;
  }[];
  if (!row) throw new Error('audit_chain has no row: run the migrations');
  return { lastSeq: Number(row.last_seq), lastHash: row.last_hash, floorSeq: Number(row.floor_seq), floorHash: row.floor_hash };
}
