import type { AuditEntry } from '../../domain/audit/audit-entry';
import { Permissions } from '../../domain/permissions/permission';
import { type Actor, requirePermission } from '../auth/actor';
import type { AuditFilter, AuditLog, AuditPage, AuditPosition } from '../ports/audit-trail.port';

export const AUDIT_PAGE_SIZE_MAX = 100;

export interface ListAuditEventsInput {
  actor: Actor;
  filter: AuditFilter;
  pageSize: number;
  after?: AuditPosition;
}

/** GET /v1/audit-events: the trail newest first, a page at a time (needs audit:read). */
export class ListAuditEventsUseCase {
  private readonly log: AuditLog;

  constructor(deps: { auditLog: AuditLog }) {
    this.log = deps.auditLog;
  }

  async execute({ actor, filter, pageSize, after }: ListAuditEventsInput): Promise<AuditPage> {
    requirePermission(actor, Permissions.auditRead);
    return this.log.page(filter, Math.min(Math.max(1, pageSize), AUDIT_PAGE_SIZE_MAX), after);
  }
}

/** The export for SIEMs: every entry of a time range, oldest first, read as it is sent (needs audit:read). */
export class ExportAuditEventsUseCase {
  private readonly log: AuditLog;

  constructor(deps: { auditLog: AuditLog }) {
    this.log = deps.auditLog;
  }

  execute({ actor, filter }: { actor: Actor; filter: AuditFilter }): AsyncIterable<AuditEntry> {
    requirePermission(actor, Permissions.auditRead);
    return this.log.export(filter);
  }
}
