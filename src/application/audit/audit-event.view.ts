import type { AuditEntry } from '../../domain/audit/audit-entry';
import { isoTimestamp } from '../../domain/shared/iso-timestamp';

/** An audit entry as the API answers it and as the audit topic carries it (`data` of AuditEventRecorded). */
export function toAuditEventView(entry: AuditEntry) {
  return {
    _id: entry.id,
    time: isoTimestamp(new Date(entry.occurredAt)),
    action: entry.action,
    outcome: entry.outcome,
    code: entry.code,
    actor: { type: entry.actor.type, _id: entry.actor.id, name: entry.actor.name },
    target: entry.target ? { type: entry.target.type, _id: entry.target.id, snapshot: entry.target.snapshot } : null,
    source: { address: entry.source.address, user_agent: entry.source.userAgent },
    request_id: entry.requestId,
    changes: entry.changes.map((c) => ({ field: c.field, before: c.before, after: c.after })),
  };
}

export type AuditEventView = ReturnType<typeof toAuditEventView>;
