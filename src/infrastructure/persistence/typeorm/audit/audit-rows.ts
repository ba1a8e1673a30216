import { createHash, createHmac } from 'node:crypto';
import {
  type AuditActorType,
  type AuditChange,
  type AuditEntry,
  type AuditOutcome,
  type AuditTargetType,
  actionGroup,
} from '../../../../domain/audit/audit-entry';

/** The columns an entry is written to, in order (`seq` and `chain_hash` are the sealer's). */
export const ENTRY_COLUMNS = [
  'id',
  'occurred_at',
  'action',
  'action_group',
  'outcome',
  'code',
  'actor_type',
  'actor_id',
  'actor_name',
  'target_type',
  'target_id',
  'target_snapshot',
  'source_address',
  'user_agent',
  'request_id',
  'changes',
] as const;

export const SEALED_COLUMNS = [...ENTRY_COLUMNS, 'seq', 'chain_hash', 'entry_seal'] as const;

/**
 * `chain_hash` of an entry the sealer refused to link (its `seq` stays NULL): it carries no valid seal of the service
 * (entrySeal), so it was inserted behind the service's back. `audit:verify` names it; the API lists it nowhere.
 */
export const REFUSED_LINK = 'refused';

/**
 * `chain_hash` of an entry the sealer did not link because it waited longer than UNSEALED_HEAD_GRACE_MS behind a head
 * that carried no seal: it may have been linked before and cleared behind a head moved back. Kept, never linked nor
 * listed; `audit:verify` names it.
 */
export const LATE_LINK = 'late';

export type AuditRow = Record<(typeof SEALED_COLUMNS)[number], string | number | null>;

/** The values of ENTRY_COLUMNS for an entry, each cut to its column's length. */
export function entryValues(entry: AuditEntry): (string | number | null)[] {
  return [
    entry.id,
    entry.occurredAt,
    entry.action,
    actionGroup(entry.action).slice(0, 32),
    entry.outcome,
    cut(entry.code, 64),
    entry.actor.type,
    cut(entry.actor.id, 64),
    cut(entry.actor.name, 255),
    entry.target?.type ?? null,
    cut(entry.target?.id ?? null, 64),
    cut(entry.target?.snapshot ?? null, 255),
    cut(entry.source.address, 64),
    cut(entry.source.userAgent, 255),
    cut(entry.requestId, 128),
    entry.changes.length > 0 ? JSON.stringify(entry.changes) : null,
  ];
}

export function toEntry(row: AuditRow): AuditEntry {
  const text = (value: string | number | null) => (value === null ? null : String(value));
  return {
    id: String(row.id),
    occurredAt: Number(row.occurred_at),
    action: String(row.action) as AuditEntry['action'],
    outcome: String(row.outcome) as AuditOutcome,
    code: text(row.code),
    actor: { type: String(row.actor_type) as AuditActorType, id: text(row.actor_id), name: text(row.actor_name) },
    target:
      row.target_type === null
        ? null
        : { type: String(row.target_type) as AuditTargetType, id: text(row.target_id), snapshot: text(row.target_snapshot) },
    source: { address: text(row.source_address), userAgent: text(row.user_agent) },
    requestId: text(row.request_id),
    changes: row.changes === null ? [] : (JSON.parse(String(row.changes)) as AuditChange[]),
  };
}

/**
 * The link of one entry into the chain: SHA-256 (or HMAC-SHA-256 under AUDIT_SEAL_KEY) of the previous
 * link, the entry's place and every stored column as stored (the changes' JSON text as written, so
 * nothing is re-serialised between sealing and verifying). `headSealed`: the link of a sealer that seals the head it
 * leaves (AuditSealer, with the key, since 2026-12-07), which says so in the link itself, so that a head found on
 * such an entry without its seal was moved there by hand, and no one without the key can turn the link into another.
 */
export function chainLink(previous: string, seq: number, row: AuditRow, key?: string, headSealed = false): string {
  // The entry's own seal too, when it has one (entries linked before seals existed have none, and their links are
  // unchanged): clearing a linked entry's seal is an edit.
  const seal = row.entry_seal === null || row.entry_seal === undefined ? [] : [String(row.entry_seal)];
  const marker = key && headSealed ? [HEAD_SEALED] : [];
  const material = JSON.stringify([previous, seq, ...ENTRY_COLUMNS.map((column) => normalised(row[column])), ...seal, ...marker]);
  return (key ? createHmac('sha256', key) : createHash('sha256')).update(material, 'utf8').digest('hex');
}

const HEAD_SEALED = 'head-sealed';

/**
 * Which sealer linked a row, if its link verifies after `previous` at `seq`: `head-sealed`, one that seals the head it
 * leaves (this version, with the key); `legacy`, one of a version before (its head carries no seal), or any sealer
 * without the key; null, the link does not verify (an edit). A legacy link includes the one of the version before
 * entries carried seals, which leaves the entry's seal out: it verifies when the seal is the key's own, so the columns
 * are as the service wrote them (review K, 2026-12-06).
 */
export function linkKind(previous: string, seq: number, row: AuditRow, key?: string): 'head-sealed' | 'legacy' | null {
  const stored = row.chain_hash;
  if (key && chainLink(previous, seq, row, key, true) === stored) return 'head-sealed';
  if (chainLink(previous, seq, row, key) === stored) return 'legacy';
  if (!key || row.entry_seal === null || row.entry_seal === undefined) return null;
  if (entrySeal(storedEntryValues(row), key) !== String(row.entry_seal)) return null;
  return chainLink(previous, seq, { ...row, entry_seal: null }, key) === stored ? 'legacy' : null;
}

/**
 * An entry's own seal, written with it by the process that inserts it (insertAuditEntries) when AUDIT_SEAL_KEY is
 * set: HMAC-SHA-256 under the key of every column of ENTRY_COLUMNS. The sealer links only entries whose seal verifies,
 * so a row inserted by someone who can write the table but has not the key is never sealed as genuine. `values` in
 * ENTRY_COLUMNS' order, as inserted or as read back (normalised alike).
 */
export function entrySeal(values: readonly (string | number | null | undefined)[], key: string): string {
  return createHmac('sha256', key).update(JSON.stringify(['entry', ...values.map(normalised)]), 'utf8').digest('hex');
}

/** ENTRY_COLUMNS' values of a row read back, in order. */
export function storedEntryValues(row: AuditRow): (string | number | null)[] {
  return ENTRY_COLUMNS.map((column) => row[column]);
}

/** A column's value as the chain hashes it: numbers (a driver may answer a BIGINT as text) as text. */
function normalised(value: string | number | null | undefined): string | null {
  return value === null || value === undefined ? null : String(value);
}

/**
 * A text value as stored: well-formed (a lone surrogate, which a user agent may hold, as U+FFFD, which every database
 * keeps alike; sql.js would keep bytes that read back otherwise), without a leading byte order mark, and at most
 * `length` characters.
 */
function cut(text: string | null, length: number): string | null {
  if (text === null) return null;
  // sql.js reads a leading U+FEFF (a byte order mark) back without it: none is stored.
  const value = text.toWellFormed().replace(/^\uFEFF+/, '');
  // No more UTF-16 units than the limit: no more characters either (the usual case, without splitting the string).
  if (value.length <= length) return value;
  const chars = Array.from(value);
  return chars.length <= length ? value : chars.slice(0, length).join('');
}

export const SELECT_SEALED = `SELECT ${SEALED_COLUMNS.join(', ')} FROM audit_events`;
