import type { DataSource } from 'typeorm';
import type { AuditFilter, AuditLog, AuditPage, AuditPosition } from '../../../../application/ports/audit-trail.port';
import { type AuditEntry, AuditActions, actionGroup } from '../../../../domain/audit/audit-entry';
import type { SqliteWriteQueue } from '../sqlite-write-queue';
import { type AuditRow, entrySeal, SELECT_SEALED, storedEntryValues, toEntry } from './audit-rows';
import { entrySealKeyOf } from './entry-seal-keys';

const GROUPS = new Set(Object.values(AuditActions).map(actionGroup));
const EXPORT_BATCH = 500;

/**
 * The trail read back by keyset on (occurred_at, id). Each filter has an index that ends with those two
 * columns (migration 1765300000000), so a page (first or deep) is one index range of `pageSize + 1` rows.
 * Reads take their turn on SQLite's one connection, as every statement outside a transaction does.
 */
export class TypeOrmAuditLog implements AuditLog {
  constructor(private readonly deps: { dataSource: DataSource; sqliteWriteQueue: SqliteWriteQueue }) {}

  async page(filter: AuditFilter, pageSize: number, after?: AuditPosition): Promise<AuditPage> {
    // One read as a rule; another after the last row read only when rows not linked yet were left out (below).
    const kept: AuditRow[] = [];
    let position = after;
    for (;;) {
      const { where, parameters } = conditions(filter);
      if (position) {
        // The first term is the index range; the second only drops the rows of the boundary millisecond already seen.
        where.push('occurred_at <= ? AND (occurred_at < ? OR id < ?)');
        parameters.push(position.occurredAt, position.occurredAt, position.id);
      }
      const wanted = pageSize + 1 - kept.length;
      const rows = await this.query(`${SELECT_SEALED}${clause(where)} ORDER BY occurred_at DESC, id DESC LIMIT ${wanted}`, parameters);
      kept.push(...this.listable(rows));
      const last = rows[rows.length - 1];
      if (rows.length < wanted || kept.length > pageSize || !last) break;
      position = { occurredAt: Number(last.occurred_at), id: String(last.id) };
    }
    const entries = kept.slice(0, pageSize).map(toEntry);
    const last = entries[entries.length - 1];
    return kept.length > pageSize && last ? { entries, next: { occurredAt: last.occurredAt, id: last.id } } : { entries };
  }

  async *export(filter: AuditFilter): AsyncIterable<AuditEntry> {
    let after: AuditPosition | undefined;
    for (;;) {
      const { where, parameters } = conditions(filter);
      if (after) {
        where.push('occurred_at >= ? AND (occurred_at > ? OR id > ?)');
        parameters.push(after.occurredAt, after.occurredAt, after.id);
      }
      const rows = await this.query(`${SELECT_SEALED}${clause(where)} ORDER BY occurred_at ASC, id ASC LIMIT ${EXPORT_BATCH}`, parameters);
      for (const row of this.listable(rows)) yield toEntry(row);
      if (rows.length < EXPORT_BATCH) return;
      const last = rows[rows.length - 1]!;
      after = { occurredAt: Number(last.occurred_at), id: String(last.id) };
    }
  }

  /**
   * With AUDIT_SEAL_KEY, an entry not linked yet is listed only when it carries the key's seal: a row inserted behind
   * the service's back, listed until the sealer refused it (for as long as the sealer was stalled, review S), is not.
   * One without a seal (a replica of a version before seals, in a rolling upgrade) is listed once linked, a second on.
   */
  private listable(rows: AuditRow[]): AuditRow[] {
    const key = entrySealKeyOf(this.deps.dataSource);
    if (!key) return rows;
    return rows.filter((row) => row.seq !== null || (row.entry_seal !== null && row.entry_seal === entrySeal(storedEntryValues(row), key)));
  }

  private query(sql: string, parameters: unknown[]): Promise<AuditRow[]> {
    return this.deps.sqliteWriteQueue.serialize(() => this.deps.dataSource.query(sql, parameters) as Promise<AuditRow[]>);
  }
}

function conditions(filter: AuditFilter): { where: string[]; parameters: unknown[] } {
  // Linked entries, and those not linked yet (a second at most); never one refused by the sealer (no valid seal:
  // inserted behind the service's back) nor one given a link with no place in the chain.
  const where: string[] = ['(seq IS NOT NULL OR chain_hash IS NULL)'];
  const parameters: unknown[] = [];
  const equal = (column: string, value: unknown) => {
    where.push(`${column} = ?`);
    parameters.push(value);
  };
  if (filter.actorId !== undefined) equal('actor_id', filter.actorId);
  if (filter.targetId !== undefined) equal('target_id', filter.targetId);
  if (filter.outcome !== undefined) equal('outcome', filter.outcome);
  if (filter.requestId !== undefined) equal('request_id', filter.requestId);
  if (filter.actionPrefix !== undefined) actionCondition(filter.actionPrefix, equal, where, parameters);
  if (filter.from !== undefined) {
    where.push('occurred_at >= ?');
    parameters.push(filter.from);
  }
  if (filter.to !== undefined) {
    where.push('occurred_at < ?');
    parameters.push(filter.to);
  }
  return { where, parameters };
}

/**
 * A whole group (`user`, `user.`) reads its own index; an exact action too; any other prefix narrows the
 * group's index when it names one, and is a LIKE otherwise.
 */
function actionCondition(prefix: string, equal: (column: string, value: unknown) => void, where: string[], parameters: unknown[]): void {
  const bare = prefix.endsWith('.') ? prefix.slice(0, -1) : prefix;
  if (!bare.includes('.') && GROUPS.has(bare)) return equal('action_group', bare);
  if ((Object.values(AuditActions) as string[]).includes(prefix)) return equal('action', prefix);
  if (prefix.includes('.')) equal('action_group', actionGroup(prefix));
  where.push("action LIKE ? ESCAPE '!'");
  parameters.push(`${prefix.replace(/[!%_]/g, (c) => `!${c}`)}%`);
}

function clause(where: string[]): string {
  return where.length === 0 ? '' : ` WHERE ${where.join(' AND ')}`;
}
