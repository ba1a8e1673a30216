/**
 * One line of the audit trail (#23): who did what to whom, when, from where, and how it ended. Written
 * with the change it describes; never carries a password, hash, token, secret, link or client assertion
 * (`assertNothingSecret` refuses a change to such a field by its name).
 */
export interface AuditEntry {
  readonly id: string;
  /** Milliseconds since the epoch. */
  readonly occurredAt: number;
  /** A stable name, `<group>.<what happened>`: `user.role_changed`, `auth.signin_failed`, … */
  readonly action: AuditAction;
  readonly outcome: AuditOutcome;
  /** Why, when it matters: a refusal's internal reason (`unknown_user`, `wrong_password`, …), an error code. */
  readonly code: string | null;
  readonly actor: AuditActor;
  readonly target: AuditTarget | null;
  readonly source: AuditSource;
  readonly requestId: string | null;
  readonly changes: readonly AuditChange[];
}

export type AuditOutcome = 'success' | 'failure';
export const AUDIT_OUTCOMES: readonly AuditOutcome[] = ['success', 'failure'];

export type AuditActorType = 'user' | 'service_account' | 'anonymous';

export interface AuditActor {
  readonly type: AuditActorType;
  readonly id: string | null;
  /** The name it had then (a user's username, a service account's name). */
  readonly name: string | null;
}

export const ANONYMOUS: AuditActor = Object.freeze({ type: 'anonymous', id: null, name: null });

export type AuditTargetType = 'user' | 'role' | 'service_account' | 'invitation' | 'session';

export interface AuditTarget {
  readonly type: AuditTargetType;
  readonly id: string | null;
  /** What it was called then (a username, a role's or an account's name). */
  readonly snapshot: string | null;
}

export interface AuditSource {
  /** The client's address as the proxy settings (TRUST_PROXY) resolve it. */
  readonly address: string | null;
  readonly userAgent: string | null;
}

export interface AuditChange {
  readonly field: string;
  readonly before: AuditValue;
  readonly after: AuditValue;
}

export type AuditValue = string | number | boolean | null | readonly string[];

export const AuditActions = {
  signInSucceeded: 'auth.signin_succeeded',
  signInFailed: 'auth.signin_failed',
  lockedOut: 'auth.locked_out',
  signedOut: 'auth.signed_out',
  refreshReuseDetected: 'auth.refresh_reuse_detected',
  passwordChanged: 'auth.password_changed',
  /** The password was right; the second factor is asked for (#24). */
  mfaRequired: 'auth.mfa_required',
  /** The second step of a sign-in refused (code: why). Its success is `auth.signin_succeeded`, code the method. */
  mfaSignInFailed: 'auth.mfa_failed',
  mfaEnrollmentStarted: 'mfa.enrollment_started',
  mfaEnrolled: 'mfa.enrolled',
  mfaRemoved: 'mfa.removed',
  mfaPasskeyRenamed: 'mfa.passkey_renamed',
  mfaRecoveryCodesRegenerated: 'mfa.recovery_codes_regenerated',
  mfaRecoveryCodeUsed: 'mfa.recovery_code_used',
  passwordResetRequested: 'auth.password_reset_requested',
  passwordResetConfirmed: 'auth.password_reset_confirmed',
  invitationIssued: 'invitation.issued',
  invitationResent: 'invitation.resent',
  invitationRevoked: 'invitation.revoked',
  invitationAccepted: 'invitation.accepted',
  userUpdated: 'user.updated',
  userRoleChanged: 'user.role_changed',
  userDeactivated: 'user.deactivated',
  userReactivated: 'user.reactivated',
  userDeleted: 'user.deleted',
  userCreated: 'user.created',
  roleCreated: 'role.created',
  roleUpdated: 'role.updated',
  roleDeleted: 'role.deleted',
  serviceAccountCreated: 'service_account.created',
  serviceAccountUpdated: 'service_account.updated',
  serviceAccountDeleted: 'service_account.deleted',
  serviceAccountSecretAdded: 'service_account.secret_added',
  serviceAccountSecretDeleted: 'service_account.secret_deleted',
  serviceAccountKeysReplaced: 'service_account.keys_replaced',
  serviceTokenGranted: 'service_account.token_granted',
  serviceTokenRefused: 'service_account.token_refused',
  /** A client authentication refused at the OAuth endpoints (code: the method tried, or `throttled`). */
  clientAuthenticationFailed: 'service_account.authentication_failed',
} as const;

export type AuditAction = (typeof AuditActions)[keyof typeof AuditActions];

/** The action's group, the part before the dot: what a prefix filter on a whole group reads from an index. */
export function actionGroup(action: string): string {
  const dot = action.indexOf('.');
  return dot < 0 ? action : action.slice(0, dot);
}

/** Field names that name a secret: a change to one is never recorded, whatever its value. */
const SECRET_FIELD = /password|hash|token|secret|assertion|link/i;

export class AuditSecretFieldError extends Error {
  constructor(field: string) {
    super(`an audit entry may not record the field "${field}"`);
  }
}

/** Refuses an entry that records a change to a secret field (a bug in the use case that built it). */
export function assertNothingSecret(changes: readonly AuditChange[]): void {
  for (const change of changes) if (SECRET_FIELD.test(change.field)) throw new AuditSecretFieldError(change.field);
}

/** The fields whose value moved, each from → to; equal ones are left out. */
export function changedFields(before: Record<string, AuditValue>, after: Record<string, AuditValue>): AuditChange[] {
  const changes: AuditChange[] = [];
  for (const field of Object.keys(after)) {
    if (!sameValue(before[field] ?? null, after[field] ?? null)) changes.push({ field, before: before[field] ?? null, after: after[field] ?? null });
  }
  return changes;
}

function sameValue(a: AuditValue, b: AuditValue): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');
  return a === b;
}
