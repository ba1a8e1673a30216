import type { DomainEvent } from '../shared/domain-event';

export const ROLE_CREATED = 'RoleCreated';
export const ROLE_CHANGED = 'RoleChanged';
export const ROLE_DELETED = 'RoleDeleted';

export interface RoleCreatedData {
  role_id: string;
  name: string;
  /** Permission names, sorted. */
  permissions: string[];
  created_by: string;
  created_date: string;
}

/** Each changed field with its new value (`changes`) and its value before (`previous`); a field not listed is unchanged. */
export interface RoleChangedData {
  role_id: string;
  changes: { name?: string; permissions?: string[] };
  previous: { name?: string; permissions?: string[] };
  changed_by: string;
  changed_date: string;
}

export interface RoleDeletedData {
  role_id: string;
  name: string;
  deleted_by: string;
  deleted_date: string;
}

export type RoleCreated = DomainEvent<typeof ROLE_CREATED, RoleCreatedData>;
export type RoleChanged = DomainEvent<typeof ROLE_CHANGED, RoleChangedData>;
export type RoleDeleted = DomainEvent<typeof ROLE_DELETED, RoleDeletedData>;
