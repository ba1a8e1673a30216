import type { DomainEvent } from '../shared/domain-event';

export const USER_UPDATED = 'UserUpdated';
export const USER_ROLE_CHANGED = 'UserRoleChanged';
export const USER_DEACTIVATED = 'UserDeactivated';
export const USER_REACTIVATED = 'UserReactivated';
export const USER_DELETED = 'UserDeleted';

export interface UserUpdatedData {
  user_id: string;
  /** The fields that changed, each with its new value; a field not listed is unchanged. */
  changes: { name?: string };
  updated_by: string;
  updated_date: string;
}

export interface UserRoleChangedData {
  user_id: string;
  role: { _id: string; name: string };
  previous_role: { _id: string; name: string };
  changed_by: string;
  changed_date: string;
}

export interface UserDeactivatedData {
  user_id: string;
  deactivated_by: string;
  deactivated_date: string;
}

export interface UserReactivatedData {
  user_id: string;
  /** `active` for a user who had joined, `pending` for an invitee who had not. */
  status: 'pending' | 'active';
  reactivated_by: string;
  reactivated_date: string;
}

/** Only the id: the person's data is erased, and events must not keep it. */
export interface UserDeletedData {
  user_id: string;
  deleted_by: string;
  deleted_date: string;
}

export type UserUpdated = DomainEvent<typeof USER_UPDATED, UserUpdatedData>;
export type UserRoleChanged = DomainEvent<typeof USER_ROLE_CHANGED, UserRoleChangedData>;
export type UserDeactivated = DomainEvent<typeof USER_DEACTIVATED, UserDeactivatedData>;
export type UserReactivated = DomainEvent<typeof USER_REACTIVATED, UserReactivatedData>;
export type UserDeleted = DomainEvent<typeof USER_DELETED, UserDeletedData>;
