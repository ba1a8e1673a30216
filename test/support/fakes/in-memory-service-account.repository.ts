import type {
  ServiceAccountCredentialStore,
  ServiceAccountRepository,
  ServiceAccountStore,
} from '../../../src/application/ports/service-account-repository.port';
import type { Slice } from '../../../src/application/shared/pagination';
import { ServiceAccount, type ServiceAccountState } from '../../../src/domain/service-accounts/service-account';
import { ServiceAccountChangedConcurrentlyError, ServiceAccountNameTakenError } from '../../../src/domain/service-accounts/service-account.errors';
import { serviceAccountNameKey } from '../../../src/domain/service-accounts/service-account-name';
import type { AuditTrail } from '../../../src/application/ports/audit-trail.port';
import type { AuditEntry } from '../../../src/domain/audit/audit-entry';
import { InMemoryAuditTrail } from './in-memory-audit-trail';
import { ioBoundary } from './io-boundary';
import { TransactionalFake } from './transactional-fake';

/**
 * Service accounts, their secrets and the remembered client assertions. As a ServiceAccountStore it is a
 * transaction's copy (InMemoryUnitOfWork): writes are replayed on commit, where the unique name and
 * client id and the version are checked again against what is committed by then.
 */
export class InMemoryServiceAccountRepository implements ServiceAccountRepository, ServiceAccountCredentialStore {
  private states = new Map<string, ServiceAccountState>();
  private readonly assertions = new Map<string, Date>();

  /** `audit`: where the entries a remembered assertion commits with are written (a grant's, #23). */
  constructor(private readonly audit: AuditTrail = new InMemoryAuditTrail()) {}

  /** Arranges (or replaces) an account as stored, as an operator editing the tables would. */
  save(state: ServiceAccountState): void {
    this.states.set(state.id, copy(state));
  }

  all(): ServiceAccountState[] {
    return [...this.states.values()].map(copy);
  }

  async findById(id: string): Promise<ServiceAccountState | null> {
    await ioBoundary();
    const state = this.states.get(id);
    return state ? copy(state) : null;
  }

  async list({ offset, limit }: Slice): Promise<{ items: ServiceAccountState[]; total: number }> {
    await ioBoundary();
    const all = [...this.states.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return { items: all.slice(offset, offset + limit).map(copy), total: all.length };
  }

  async findByClientId(clientId: string): Promise<ServiceAccountState | null> {
    await ioBoundary();
    const state = [...this.states.values()].find((s) => s.clientId === clientId);
    return state ? copy(state) : null;
  }

  async markSecretUsed(secretId: string, at: Date): Promise<void> {
    await ioBoundary();
    for (const state of this.states.values()) {
      const secret = state.secrets.find((s) => s.id === secretId);
      if (secret) secret.lastUsedAt = at;
    }
  }

  async rememberAssertion(key: string, expiresAt: Date, now: Date, entries: readonly AuditEntry[] = []): Promise<boolean> {
    await ioBoundary();
    const known = this.assertions.get(key);
    if (known && known.getTime() > now.getTime()) return false;
    this.assertions.set(key, expiresAt);
    if (entries.length > 0) await this.audit.record(entries);
    return true;
  }

  // ---- transactions, driven by InMemoryUnitOfWork ----

  beginTransaction(): InMemoryServiceAccountStore {
    return new InMemoryServiceAccountStore(new Map([...this.states].map(([id, s]) => [id, copy(s)])));
  }

  prepareCommit(transaction: InMemoryServiceAccountStore): () => void {
    const staged = new Map([...this.states].map(([id, s]) => [id, copy(s)]));
    for (const write of transaction.writes) apply(staged, write);
    return () => {
      this.states = staged;
    };
  }
}

type Write =
  | { kind: 'insert'; state: ServiceAccountState }
  | { kind: 'update'; state: ServiceAccountState; readVersion: number }
  | { kind: 'delete'; id: string; readVersion: number };

export class InMemoryServiceAccountStore extends TransactionalFake implements ServiceAccountStore {
  readonly writes: Write[] = [];

  constructor(private readonly states: Map<string, ServiceAccountState>) {
    super();
  }

  /** What this transaction sees (the role store counts a role's holders with it). */
  all(): ServiceAccountState[] {
    return [...this.states.values()].map(copy);
  }

  async findForChange(id: string): Promise<ServiceAccount | null> {
    await this.io();
    const state = this.states.get(id);
    return state ? ServiceAccount.restore(state) : null;
  }

  async insert(account: ServiceAccount): Promise<void> {
    await this.io();
    this.write({ kind: 'insert', state: account.snapshot().state });
  }

  async update(account: ServiceAccount): Promise<void> {
    await this.io();
    const { state, readVersion } = account.snapshot();
    this.write({ kind: 'update', state, readVersion });
  }

  async delete(account: ServiceAccount): Promise<void> {
    await this.io();
    this.write({ kind: 'delete', id: account.id, readVersion: account.snapshot().readVersion });
  }

  private write(write: Write): void {
    apply(this.states, write);
    this.writes.push(write);
  }
}

function apply(states: Map<string, ServiceAccountState>, write: Write): void {
  if (write.kind === 'delete') {
    if (states.get(write.id)?.version !== write.readVersion) throw new ServiceAccountChangedConcurrentlyError();
    states.delete(write.id);
    return;
  }
  const state = copy(write.state);
  const before = states.get(state.id);
  if (write.kind === 'update' && before?.version !== write.readVersion) throw new ServiceAccountChangedConcurrentlyError();
  if (write.kind === 'insert' && before) throw new Error(`service account ${state.id} exists`);
  const key = serviceAccountNameKey(state.name);
  if ([...states.values()].some((o) => o.id !== state.id && serviceAccountNameKey(o.name) === key)) throw new ServiceAccountNameTakenError(state.name);
  if ([...states.values()].some((o) => o.id !== state.id && o.clientId === state.clientId)) throw new Error('client_id taken');
  // A secret's last use is the credential store's, not the aggregate's: it stays as stored.
  const lastUse = new Map((before?.secrets ?? []).map((s) => [s.id, s.lastUsedAt]));
  state.secrets = state.secrets.map((s) => {
    const { lastUsedAt: _ignored, ...rest } = s;
    const used = lastUse.get(s.id);
    return used ? { ...rest, lastUsedAt: used } : rest;
  });
  states.set(state.id, state);
}

function copy(state: ServiceAccountState): ServiceAccountState {
  return { ...state, keys: state.keys.map((k) => ({ ...k })), secrets: state.secrets.map((s) => ({ ...s })) };
}
