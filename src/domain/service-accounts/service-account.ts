import { AggregateRoot } from '../shared/domain-event';
import type { PublicJwk } from './public-jwk-set';
import { LastCredentialError, NoSuchServiceAccountSecretError, TooManySecretsError } from './service-account.errors';
import {
  SERVICE_ACCOUNT_CHANGED,
  SERVICE_ACCOUNT_CREATED,
  SERVICE_ACCOUNT_DELETED,
  SERVICE_ACCOUNT_KEYS_CHANGED,
  SERVICE_ACCOUNT_SECRET_ADDED,
  SERVICE_ACCOUNT_SECRET_REMOVED,
  type ServiceAccountChanged,
  type ServiceAccountCreated,
  type ServiceAccountDeleted,
  type ServiceAccountFields,
  type ServiceAccountKeysChanged,
  type ServiceAccountSecretAdded,
  type ServiceAccountSecretRemoved,
} from './service-account-events';
import { parseDescription, parseServiceAccountName } from './service-account-name';

/** A secret as stored: its SHA-256, never the secret. */
export interface ServiceAccountSecretState {
  id: string;
  hash: string;
  createdAt: Date;
  expiresAt?: Date;
  lastUsedAt?: Date;
}

export interface ServiceAccountState {
  id: string;
  clientId: string;
  name: string;
  description?: string;
  roleId: string;
  disabled: boolean;
  /**
   * Tokens issued (`iat`, seconds) before this second are not the account's: set when it is disabled, to the second
   * after, so enabling it again does not bring back the tokens that disabling ended. Absent: never disabled.
   */
  tokensValidFrom?: number;
  keys: PublicJwk[];
  secrets: ServiceAccountSecretState[];
  /** Optimistic version, 1 at creation: every change (secrets and keys included) moves it on. */
  version: number;
  createdAt: Date;
  createdBy?: string;
  updatedAt?: Date;
  updatedBy?: string;
}

/** Who changes an account, when, and the ids of the events the change records. */
export interface ServiceAccountChangeBy {
  by: string;
  now: Date;
  newId: () => string;
}

/** A new secret: its id and hash (the secret itself goes back to the caller once and is never kept). */
export interface NewSecret {
  id: string;
  hash: string;
  expiresAt?: Date;
}

/**
 * The first second whose tokens a disabling at `now` leaves the account: the next whole second. A token's `iat`
 * counts whole seconds, so every token issued up to `now` (its `iat` at most `now`'s second) is ended.
 */
function tokensValidFromDisabling(now: Date): number {
  return Math.floor(now.getTime() / 1000) + 1;
}

/** Enough to rotate with overlap (old and new), and a bound on what one authentication compares. */
export const MAX_SECRETS = 5;

/**
 * Another service's identity: a name, a role it holds as a user would, and its credentials (secrets,
 * public keys). Its rules: a valid name, at most MAX_SECRETS secrets, and never left without any
 * credential by a removal. Each change moves the version on and records its event.
 */
export class ServiceAccount extends AggregateRoot {
  private readonly readVersion: number;

  private constructor(private state: ServiceAccountState) {
    super();
    this.readVersion = state.version;
  }

  static restore(state: ServiceAccountState): ServiceAccount {
    return new ServiceAccount(copy(state));
  }

  static create(
    input: { id: string; clientId: string; name: string; description?: string; roleId: string; secret: NewSecret } & ServiceAccountChangeBy,
  ): ServiceAccount {
    const name = parseServiceAccountName(input.name);
    const description = parseDescription(input.description);
    const account = new ServiceAccount({
      id: input.id,
      clientId: input.clientId,
      name,
      ...(description !== undefined ? { description } : {}),
      roleId: input.roleId,
      disabled: false,
      keys: [],
      secrets: [secretState(input.secret, input.now)],
      version: 1,
      createdAt: input.now,
      createdBy: input.by,
    });
    account.record({
      id: input.newId(),
      type: SERVICE_ACCOUNT_CREATED,
      aggregateId: account.id,
      occurredAt: input.now,
      data: {
        service_account_id: account.id,
        client_id: account.clientId,
        name,
        ...(description !== undefined ? { description } : {}),
        role_id: input.roleId,
        secret_id: input.secret.id,
        created_by: input.by,
        created_date: input.now.toISOString(),
      },
    } satisfies ServiceAccountCreated);
    return account;
  }

  get id(): string {
    return this.state.id;
  }

  get clientId(): string {
    return this.state.clientId;
  }

  get roleId(): string {
    return this.state.roleId;
  }

  get version(): number {
    return this.state.version;
  }

  /**
   * Changes the name, description (`null` removes it), role and/or disabled flag; returns false (and
   * records nothing) when nothing differs.
   */
  change(input: { name?: string; description?: string | null; roleId?: string; disabled?: boolean } & ServiceAccountChangeBy): boolean {
    const changes: ServiceAccountFields = {};
    const previous: ServiceAccountFields = {};
    const next = copy(this.state);
    if (input.name !== undefined && input.name !== this.state.name) {
      next.name = parseServiceAccountName(input.name);
      changes.name = next.name;
      previous.name = this.state.name;
    }
    if (input.description !== undefined) {
      const description = parseDescription(input.description);
      if (description !== this.state.description) {
        changes.description = description ?? null;
        previous.description = this.state.description ?? null;
        if (description === undefined) delete next.description;
        else next.description = description;
      }
    }
    if (input.roleId !== undefined && input.roleId !== this.state.roleId) {
      next.roleId = input.roleId;
      changes.role_id = input.roleId;
      previous.role_id = this.state.roleId;
    }
    if (input.disabled !== undefined && input.disabled !== this.state.disabled) {
      next.disabled = input.disabled;
      if (input.disabled) next.tokensValidFrom = tokensValidFromDisabling(input.now);
      changes.disabled = input.disabled;
      previous.disabled = this.state.disabled;
    }
    if (Object.keys(changes).length === 0) return false;
    this.state = this.touched(next, input);
    this.record({
      id: input.newId(),
      type: SERVICE_ACCOUNT_CHANGED,
      aggregateId: this.id,
      occurredAt: input.now,
      data: { service_account_id: this.id, changes, previous, changed_by: input.by, changed_date: input.now.toISOString() },
    } satisfies ServiceAccountChanged);
    return true;
  }

  addSecret(secret: NewSecret, input: ServiceAccountChangeBy): void {
    if (this.state.secrets.length >= MAX_SECRETS) throw new TooManySecretsError(MAX_SECRETS);
    const next = copy(this.state);
    next.secrets.push(secretState(secret, input.now));
    this.state = this.touched(next, input);
    this.record({
      id: input.newId(),
      type: SERVICE_ACCOUNT_SECRET_ADDED,
      aggregateId: this.id,
      occurredAt: input.now,
      data: {
        service_account_id: this.id,
        secret_id: secret.id,
        ...(secret.expiresAt ? { expires_date: secret.expiresAt.toISOString() } : {}),
        added_by: input.by,
        added_date: input.now.toISOString(),
      },
    } satisfies ServiceAccountSecretAdded);
  }

  /** Removes a secret; refused when it is the last credential (no other secret, no key). */
  removeSecret(secretId: string, input: ServiceAccountChangeBy): void {
    if (!this.state.secrets.some((s) => s.id === secretId)) throw new NoSuchServiceAccountSecretError();
    const next = copy(this.state);
    next.secrets = next.secrets.filter((s) => s.id !== secretId);
    if (next.secrets.length === 0 && next.keys.length === 0) throw new LastCredentialError();
    this.state = this.touched(next, input);
    this.record({
      id: input.newId(),
      type: SERVICE_ACCOUNT_SECRET_REMOVED,
      aggregateId: this.id,
      occurredAt: input.now,
      data: { service_account_id: this.id, secret_id: secretId, removed_by: input.by, removed_date: input.now.toISOString() },
    } satisfies ServiceAccountSecretRemoved);
  }

  /** Replaces the public keys whole (already checked by parsePublicJwkSet); false when the set is the same. */
  replaceKeys(keys: readonly PublicJwk[], input: ServiceAccountChangeBy): boolean {
    if (JSON.stringify(keys) === JSON.stringify(this.state.keys)) return false;
    if (keys.length === 0 && this.state.secrets.length === 0) throw new LastCredentialError();
    const previousKids = this.state.keys.map((k) => k.kid);
    const next = copy(this.state);
    next.keys = keys.map((k) => ({ ...k }));
    this.state = this.touched(next, input);
    this.record({
      id: input.newId(),
      type: SERVICE_ACCOUNT_KEYS_CHANGED,
      aggregateId: this.id,
      occurredAt: input.now,
      data: {
        service_account_id: this.id,
        kids: keys.map((k) => k.kid),
        previous_kids: previousKids,
        changed_by: input.by,
        changed_date: input.now.toISOString(),
      },
    } satisfies ServiceAccountKeysChanged);
    return true;
  }

  /** Records the deletion; its secrets go with its row. */
  delete(input: ServiceAccountChangeBy): void {
    this.record({
      id: input.newId(),
      type: SERVICE_ACCOUNT_DELETED,
      aggregateId: this.id,
      occurredAt: input.now,
      data: { service_account_id: this.id, client_id: this.clientId, name: this.state.name, deleted_by: input.by, deleted_date: input.now.toISOString() },
    } satisfies ServiceAccountDeleted);
  }

  /** The state to store, and the version the row must still have (the one read) for the write to apply. */
  snapshot(): { state: ServiceAccountState; readVersion: number } {
    return { state: copy(this.state), readVersion: this.readVersion };
  }

  private touched(next: ServiceAccountState, by: ServiceAccountChangeBy): ServiceAccountState {
    return { ...next, version: this.state.version + 1, updatedAt: by.now, updatedBy: by.by };
  }
}

function secretState(secret: NewSecret, now: Date): ServiceAccountSecretState {
  return { id: secret.id, hash: secret.hash, createdAt: now, ...(secret.expiresAt ? { expiresAt: secret.expiresAt } : {}) };
}

function copy(state: ServiceAccountState): ServiceAccountState {
  return { ...state, keys: state.keys.map((k) => ({ ...k })), secrets: state.secrets.map((s) => ({ ...s })) };
}
