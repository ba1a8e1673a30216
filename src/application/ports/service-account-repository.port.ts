import type { AuditEntry } from '../../domain/audit/audit-entry';
import type { ServiceAccount, ServiceAccountState } from '../../domain/service-accounts/service-account';
import type { Slice } from '../shared/pagination';

/** Service accounts as committed (reads outside a transaction), with their secrets' hashes: views leave those out. */
export interface ServiceAccountRepository {
  findById(id: string): Promise<ServiceAccountState | null>;
  /** Ordered by id (UUIDv7: by creation), with the total count. */
  list(slice: Slice): Promise<{ items: ServiceAccountState[]; total: number }>;
}

/** Service accounts inside a unit of work (TransactionScope.serviceAccounts): read to change, written with their events. */
export interface ServiceAccountStore {
  findForChange(id: string): Promise<ServiceAccount | null>;
  /** ServiceAccountNameTakenError when the name is taken (case-insensitively). */
  insert(account: ServiceAccount): Promise<void>;
  /**
   * Writes the account and its secrets as they are now (added ones inserted, removed ones deleted; a
   * secret's last use is not the aggregate's and is left as stored). ServiceAccountChangedConcurrentlyError
   * when the row's version is no longer the one read; ServiceAccountNameTakenError as insert.
   */
  update(account: ServiceAccount): Promise<void>;
  /** Deletes the account and its secrets; ServiceAccountChangedConcurrentlyError as update. */
  delete(account: ServiceAccount): Promise<void>;
}

/** What verifying a service account's credentials reads and writes, outside any unit of work. */
export interface ServiceAccountCredentialStore {
  findByClientId(clientId: string): Promise<ServiceAccountState | null>;
  /** Records the secret's last use (a secret deleted meanwhile is no error). */
  markSecretUsed(secretId: string, at: Date): Promise<void>;
  /**
   * Remembers a client assertion's key (its client and `jti`) until `expiresAt`, for every replica:
   * true the first time, false when it is remembered and not yet expired. Of two callers at once with
   * one key, exactly one is told true.
   *
   * `entries` (a token grant's audit entries) commit with the key: written when the answer is true, never
   * when it is false, so a grant by `private_key_jwt` waits on one commit rather than two in turn.
   */
  rememberAssertion(key: string, expiresAt: Date, now: Date, entries?: readonly AuditEntry[]): Promise<boolean>;
}
