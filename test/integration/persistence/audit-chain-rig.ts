import type { AuditEntry } from '../../../src/domain/audit/audit-entry';
import { AUDIT_EVENT_TYPE } from '../../../src/infrastructure/messaging/cloud-event';
import { AUDIT_GENESIS_HASH } from '../../../src/infrastructure/persistence/migrations/1765300000000-audit-trail';
import { AuditSealer } from '../../../src/infrastructure/persistence/typeorm/audit/audit-sealer';
import { AuditVerifier } from '../../../src/infrastructure/persistence/typeorm/audit/audit-verifier';
import { keepEntrySealKey } from '../../../src/infrastructure/persistence/typeorm/audit/entry-seal-keys';
import { StandaloneTypeOrmAuditTrail } from '../../../src/infrastructure/persistence/typeorm/audit/typeorm-audit-trail';
import { UuidV7IdGenerator } from '../../../src/infrastructure/system/uuid-v7-id-generator';
import { FixedClock } from '../../support/fakes/fixed-clock';
import { type DatabaseTarget, migratedDatabase } from './database-targets';

const ids = new UuidV7IdGenerator();

/**
 * A migrated database of `target` with an empty audit trail before each test (its chain at the start, no seal window,
 * no head seal, no entry-seal key), and the parts the audit chain's suites drive: call inside their `describe`.
 */
export function auditChainRig(target: DatabaseTarget) {
const db = migratedDatabase(target);
// Today: the sealer's own clock judges an entry's wait (UNSEALED_HEAD_GRACE_MS) by the time it was written.
const clock = new FixedClock(new Date().toISOString());
const queue = () => db.adapters.services.sqliteWriteQueue;
const sealer = (sealKey?: string, batchSize?: number) => new AuditSealer({ dataSource: db.dataSource, sqliteWriteQueue: queue(), sealKey, batchSize });
const verifier = (sealKey?: string) => new AuditVerifier({ dataSource: db.dataSource, sqliteWriteQueue: queue(), sealKey, now: () => clock.now().getTime() });
const query = <T = unknown>(sql: string, parameters: unknown[] = []) => db.dataSource.query(sql, parameters) as Promise<T>;

const write = async (count: number, at = clock.now().getTime(), userAgent = 'jest'): Promise<AuditEntry[]> => {
  const entries: AuditEntry[] = Array.from({ length: count }, (_, i) => ({
    id: ids.next(),
    occurredAt: at + i,
    action: 'user.role_changed',
    outcome: 'success',
    code: null,
    actor: { type: 'user', id: 'actor', name: 'root' },
    target: { type: 'user', id: `user-${i}`, snapshot: `user ${i}` },
    source: { address: '198.51.100.1', userAgent },
    requestId: `req-${i}`,
    changes: [{ field: 'role', before: 'member', after: 'admin' }],
  }));
  await new StandaloneTypeOrmAuditTrail({ manager: db.dataSource.manager, sqliteWriteQueue: queue() }).record(entries);
  return entries;
};
const seqOf = async (id: string) => Number((await query<{ seq: number | string }[]>('SELECT seq FROM audit_events WHERE id = ?', [id]))[0]!.seq);

/** The audit topic's events in the outbox: entry id → payload. */
const queued = async (): Promise<Map<string, Record<string, unknown>>> => {
  const rows = await query<{ aggregate_id: string; payload: string | Record<string, unknown> }[]>('SELECT aggregate_id, payload FROM outbox_events WHERE type = ?', [AUDIT_EVENT_TYPE]);
  return new Map(rows.map((r) => [r.aggregate_id, typeof r.payload === 'string' ? (JSON.parse(r.payload) as Record<string, unknown>) : r.payload]));
};

beforeEach(async () => {
  await query('DELETE FROM outbox_events WHERE type = ?', [AUDIT_EVENT_TYPE]);
  await query('DELETE FROM audit_events');
  await query('UPDATE audit_chain SET last_seq = 0, last_hash = ?, floor_seq = 0, floor_hash = ?, floor_seal = NULL, entry_seals_from = NULL, entry_seals_seal = NULL, head_seal = NULL WHERE id = 1', [
    AUDIT_GENESIS_HASH,
    AUDIT_GENESIS_HASH,
  ]);
});
afterEach(() => keepEntrySealKey(db.dataSource, undefined));

  return { db, clock, queue, sealer, verifier, query, write, seqOf, queued };
}
