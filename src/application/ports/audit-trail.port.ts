import type { AuditEntry, AuditOutcome } from '../../domain/audit/audit-entry';

/**
 * Where audit entries are written. Inside a unit of work (`TransactionScope.audit`) an entry commits
 * or rolls back with the change it describes; the process-wide one writes an entry on its own (a
 * sign-in that changed nothing else).
 */
export interface AuditTrail {
  record(entries: readonly AuditEntry[]): Promise<void>;
}

export interface AuditFilter {
  actorId?: string;
  targetId?: string;
  /** Matches the action's name from its start: `user.` or `user.role_changed`. */
  actionPrefix?: string;
  outcome?: AuditOutcome;
  /** Inclusive, ms. */
  from?: number;
  /** Exclusive, ms. */
  to?: number;
  requestId?: string;
}

/** Where a page ended: the last entry's time and id (entries are ordered by both). */
export interface AuditPosition {
  occurredAt: number;
  id: string;
}

export interface AuditPage {
  entries: AuditEntry[];
  /** Where the next page starts; absent on the last one. */
  next?: AuditPosition;
}

/** The trail read back, newest first, by keyset (never OFFSET): a deep page costs what the first does. */
export interface AuditLog {
  page(filter: AuditFilter, pageSize: number, after?: AuditPosition): Promise<AuditPage>;
  /** Every entry of the filter, oldest first, read in batches as the consumer asks for them. */
  export(filter: AuditFilter): AsyncIterable<AuditEntry>;
}
