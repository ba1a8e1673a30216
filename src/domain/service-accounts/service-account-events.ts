import type { DomainEvent } from '../shared/domain-event';

export const SERVICE_ACCOUNT_CREATED = 'ServiceAccountCreated';
export const SERVICE_ACCOUNT_CHANGED = 'ServiceAccountChanged';
export const SERVICE_ACCOUNT_DELETED = 'ServiceAccountDeleted';
export const SERVICE_ACCOUNT_SECRET_ADDED = 'ServiceAccountSecretAdded';
export const SERVICE_ACCOUNT_SECRET_REMOVED = 'ServiceAccountSecretRemoved';
export const SERVICE_ACCOUNT_KEYS_CHANGED = 'ServiceAccountKeysChanged';

/** No event ever carries a secret or its hash: a secret is named by its id. */
export interface ServiceAccountCreatedData {
  service_account_id: string;
  client_id: string;
  name: string;
  description?: string;
  role_id: string;
  /** The id of the secret created with the account. */
  secret_id: string;
  created_by: string;
  created_date: string;
}

export interface ServiceAccountFields {
  name?: string;
  /** `null`: the description was removed. */
  description?: string | null;
  role_id?: string;
  disabled?: boolean;
}

/** Each changed field with its new value (`changes`) and its value before (`previous`). */
export interface ServiceAccountChangedData {
  service_account_id: string;
  changes: ServiceAccountFields;
  previous: ServiceAccountFields;
  changed_by: string;
  changed_date: string;
}

export interface ServiceAccountDeletedData {
  service_account_id: string;
  client_id: string;
  name: string;
  deleted_by: string;
  deleted_date: string;
}

export interface ServiceAccountSecretAddedData {
  service_account_id: string;
  secret_id: string;
  expires_date?: string;
  added_by: string;
  added_date: string;
}

export interface ServiceAccountSecretRemovedData {
  service_account_id: string;
  secret_id: string;
  removed_by: string;
  removed_date: string;
}

/** The `kid`s of the whole new key set (public keys are no secret, but the set is read from the API). */
export interface ServiceAccountKeysChangedData {
  service_account_id: string;
  kids: string[];
  previous_kids: string[];
  changed_by: string;
  changed_date: string;
}

export type ServiceAccountCreated = DomainEvent<typeof SERVICE_ACCOUNT_CREATED, ServiceAccountCreatedData>;
export type ServiceAccountChanged = DomainEvent<typeof SERVICE_ACCOUNT_CHANGED, ServiceAccountChangedData>;
export type ServiceAccountDeleted = DomainEvent<typeof SERVICE_ACCOUNT_DELETED, ServiceAccountDeletedData>;
export type ServiceAccountSecretAdded = DomainEvent<typeof SERVICE_ACCOUNT_SECRET_ADDED, ServiceAccountSecretAddedData>;
export type ServiceAccountSecretRemoved = DomainEvent<typeof SERVICE_ACCOUNT_SECRET_REMOVED, ServiceAccountSecretRemovedData>;
export type ServiceAccountKeysChanged = DomainEvent<typeof SERVICE_ACCOUNT_KEYS_CHANGED, ServiceAccountKeysChangedData>;
