import type { DomainEvent } from '../shared/domain-event';
import type { SecondFactorKind } from './mfa';

export const USER_MFA_ENROLLED = 'UserMfaEnrolled';
export const USER_MFA_REMOVED = 'UserMfaRemoved';

/** A factor became active. Never its secret. */
export interface UserMfaEnrolledData {
  user_id: string;
  factor_type: SecondFactorKind;
  enrolled_date: string;
}

/** Factors were removed: by the user (with its password) or reset by an admin (`removed_by` another id). */
export interface UserMfaRemovedData {
  user_id: string;
  factor_types: SecondFactorKind[];
  /** The kinds the user still holds after it: one passkey of several removed leaves `webauthn` (review H). */
  remaining_factor_types: SecondFactorKind[];
  removed_by: string;
  removed_date: string;
}

export type UserMfaEnrolled = DomainEvent<typeof USER_MFA_ENROLLED, UserMfaEnrolledData>;
export type UserMfaRemoved = DomainEvent<typeof USER_MFA_REMOVED, UserMfaRemovedData>;

export function userMfaEnrolled(id: string, userId: string, factorType: SecondFactorKind, now: Date): UserMfaEnrolled {
  return { id, type: USER_MFA_ENROLLED, aggregateId: userId, occurredAt: now, data: { user_id: userId, factor_type: factorType, enrolled_date: now.toISOString() } };
}

export function userMfaRemoved(
  id: string,
  userId: string,
  removed: { types: SecondFactorKind[]; remaining: SecondFactorKind[] },
  by: string,
  now: Date,
): UserMfaRemoved {
  return {
    id,
    type: USER_MFA_REMOVED,
    aggregateId: userId,
    occurredAt: now,
    data: { user_id: userId, factor_types: removed.types, remaining_factor_types: removed.remaining, removed_by: by, removed_date: now.toISOString() },
  };
}
