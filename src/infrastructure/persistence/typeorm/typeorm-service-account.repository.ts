import { In, LessThan, type EntityManager } from 'typeorm';
import type {
  ServiceAccountCredentialStore,
  ServiceAccountRepository,
  ServiceAccountStore,
} from '../../../application/ports/service-account-repository.port';
import type { Slice } from '../../../application/shared/pagination';
import type { PublicJwk } from '../../../domain/service-accounts/public-jwk-set';
import { ServiceAccount, type ServiceAccountSecretState, type ServiceAccountState } from '../../../domain/service-accounts/service-account';
import { ServiceAccountChangedConcurrentlyError, ServiceAccountNameTakenError } from '../../../domain/service-accounts/service-account.errors';
import { serviceAccountNameKey } from '../../../domain/service-accounts/service-account-name';
import { RoleNotFoundError } from '../../../domain/roles/role-not-found.error';
import type { AuditEntry } from '../../../domain/audit/audit-entry';
import { insertAuditEntries } from './audit/typeorm-audit-trail';
import { foreignKeyViolationOn, uniqueViolationOn } from './database-errors';
import { isMysqlFamily } from './data-source';
import { bumpRevocationEpoch } from './revocation-epochs';
import { type ServiceAccountCredentialStatements, serviceAccountCredentialStatements } from './service-account-credential-statements';
import {
  ClientAssertionJtiSchema,
  type ServiceAccountRecord,
  ServiceAccountSchema,
  type ServiceAccountSecretRecord,
  ServiceAccountSecretSchema,
} from './service-account-records';
import type { SqliteWriteQueue } from './sqlite-write-queue';

export interface TypeOrmServiceAccountRepositoryDeps {
  /** The data source's manager, or a unit of work's transaction's. */
  manager: EntityManager;
  sqliteWriteQueue: SqliteWriteQueue;
}

/**
 * The credential statements of each DataSource, shared by its repositories (transactional or not), by the
 * SQLite queue they take turns in: one per process, but a test's fresh adapters bring a queue of their own,
 * and statements queued in another queue than the transactions' would interleave with them.
 */
const statementsByQueue = new WeakMap<SqliteWriteQueue, ServiceAccountCredentialStatements>();

/** Expired client-assertion rows are swept at most this often per process (they are ignored anyway). */
const SWEEP_EVERY_MS = 60_000;

/**
 * Service accounts and their secrets: the reads (ServiceAccountRepository), the writes of a unit of work
 * (ServiceAccountStore, on a transaction's manager), and what verifying credentials reads and writes
 * (ServiceAccountCredentialStore).
 */
export class TypeOrmServiceAccountRepository implements ServiceAccountRepository, ServiceAccountStore, ServiceAccountCredentialStore {
  private readonly manager: EntityManager;
  private readonly queue: SqliteWriteQueue;
  private lastSweep = 0;

  constructor(deps: TypeOrmServiceAccountRepositoryDeps) {
    this.manager = deps.manager;
    this.queue = deps.sqliteWriteQueue;
  }

  async findById(id: string): Promise<ServiceAccountState | null> {
    return this.queue.outside(this.manager, async () => (await this.load({ id }))[0] ?? null);
  }

  async list({ offset, limit }: Slice): Promise<{ items: ServiceAccountState[]; total: number }> {
    return this.queue.outside(this.manager, async () => {
      const accounts = this.manager.getRepository(ServiceAccountSchema);
      const [records, total] = await Promise.all([accounts.find({ order: { id: 'ASC' }, skip: offset, take: limit }), accounts.count()]);
      return { items: await this.withSecrets(records), total };
    });
  }

  /**
   * The account's version as committed, or null when there is none: one primary-key read, what the actor
   * cache compares at each request so any replica's change (role, disabled, deletion) applies at the next.
   */
  async versionOf(id: string): Promise<number | null> {
    return this.queue.outside(this.manager, async () => {
      const row = await this.manager.getRepository(ServiceAccountSchema).findOne({ where: { id }, select: { id: true, version: true } });
      return row ? row.version : null;
    });
  }

  async findByClientId(clientId: string): Promise<ServiceAccountState | null> {
    // One statement whether or not an account has the client id: the token endpoint's time does not tell the two apart.
    return this.queue.outside(this.manager, async () => {
      const { account, secrets } = await this.credentialStatements().byClientId(this.manager, clientId);
      // MariaDB's and MySQL's collations pad (`id ` = `id`): the client id must be the one asked for, byte for byte.
      return account && account.clientId === clientId ? toState(account, secrets) : null;
    });
  }

  async markSecretUsed(secretId: string, at: Date): Promise<void> {
    await this.queue.outside(this.manager, () =>
      this.manager.getRepository(ServiceAccountSecretSchema).update({ id: secretId }, { lastUsedAt: at }),
    );
  }

  async rememberAssertion(key: string, expiresAt: Date, now: Date, entries: readonly AuditEntry[] = []): Promise<boolean> {
    await this.queue.outside(this.manager, () => this.sweep(now));
    try {
      await this.credentialStatements().insertJti(key, expiresAt, entries);
      return true;
    } catch (error) {
      if (uniqueViolationOn(error) === null) throw error;
    }
    // Remembered already: accepted again only once that row has expired (never twice: the update is conditional),
    // the entries in the update's transaction.
    const renewed = await this.queue.outside(this.manager, () =>
      this.manager.transaction(async (manager) => {
        const { affected } = await manager
          .createQueryBuilder()
          .update(ClientAssertionJtiSchema)
          .set({ expiresAt })
          .where('id = :key AND expires_at <= :now', { key, now })
          .execute();
        if ((affected ?? 0) === 0) return false;
        await insertAuditEntries(manager, entries);
        return true;
      }),
    );
    return renewed;
  }

  /**
   * The account to change, its row locked until the transaction ends (MySQL, MariaDB: SQLite runs one transaction at
   * a time), and read as committed now, secrets too: concurrent changes without If-Match take turns and each builds on
   * the one before, where reading a snapshot made every one but the first fail its version check (a 409 no caller
   * asked for).
   */
  async findForChange(id: string): Promise<ServiceAccount | null> {
    this.requireTransaction();
    const state = (await this.load({ id }, isMysqlFamily(this.manager.connection)))[0];
    return state ? ServiceAccount.restore(state) : null;
  }

  async insert(account: ServiceAccount): Promise<void> {
    this.requireTransaction();
    const { state } = account.snapshot();
    try {
      await this.manager.getRepository(ServiceAccountSchema).insert(toRecord(state));
    } catch (error) {
      throw refusedWriteError(error, state);
    }
    await this.insertSecrets(state.id, state.secrets);
  }

  async update(account: ServiceAccount): Promise<void> {
    this.requireTransaction();
    const { state, readVersion } = account.snapshot();
    const { id, clientId: _clientId, createdAt: _createdAt, createdBy: _createdBy, ...fields } = toRecord(state);
    let affected: number | null | undefined;
    try {
      ({ affected } = await this.manager
        .createQueryBuilder()
        .update(ServiceAccountSchema)
        .set(fields)
        .where('id = :id AND version = :readVersion', { id, readVersion })
        .execute());
    } catch (error) {
      throw refusedWriteError(error, state);
    }
    if (affected === 0) throw new ServiceAccountChangedConcurrentlyError();
    await bumpRevocationEpoch(this.manager, id);
    const secrets = this.manager.getRepository(ServiceAccountSecretSchema);
    const stored = new Set((await secrets.find({ where: { serviceAccountId: id }, select: { id: true } })).map((s) => s.id));
    const kept = new Set(state.secrets.map((s) => s.id));
    const removed = [...stored].filter((s) => !kept.has(s));
    if (removed.length > 0) await secrets.delete({ id: In(removed), serviceAccountId: id });
    await this.insertSecrets(id, state.secrets.filter((s) => !stored.has(s.id)));
  }

  async delete(account: ServiceAccount): Promise<void> {
    this.requireTransaction();
    const { state, readVersion } = account.snapshot();
    // The secrets go with the row (ON DELETE CASCADE); deleted first all the same, for a SQLite with foreign keys off.
    await this.manager.getRepository(ServiceAccountSecretSchema).delete({ serviceAccountId: state.id });
    const { affected } = await this.manager
      .createQueryBuilder()
      .delete()
      .from(ServiceAccountSchema)
      .where('id = :id AND version = :readVersion', { id: state.id, readVersion })
      .execute();
    if (affected === 0) throw new ServiceAccountChangedConcurrentlyError();
    await bumpRevocationEpoch(this.manager, state.id);
  }

  /** Written on first use: the repositories are made before their DataSource is initialised. */
  private credentialStatements(): ServiceAccountCredentialStatements {
    const queue = this.queue;
    let statements = statementsByQueue.get(queue);
    if (!statements) statementsByQueue.set(queue, (statements = serviceAccountCredentialStatements(this.manager.connection, (work) => queue.serialize(work))));
    return statements;
  }

  private requireTransaction(): void {
    if (!this.manager.queryRunner) throw new Error('TypeOrmServiceAccountRepository: changes run in a unit of work');
  }

  private async sweep(now: Date): Promise<void> {
    if (now.getTime() - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now.getTime();
    await this.manager.getRepository(ClientAssertionJtiSchema).delete({ expiresAt: LessThan(now) });
  }

  private async insertSecrets(accountId: string, secrets: readonly ServiceAccountSecretState[]): Promise<void> {
    if (secrets.length === 0) return;
    await this.manager.getRepository(ServiceAccountSecretSchema).insert(
      secrets.map((s): ServiceAccountSecretRecord => ({
        id: s.id,
        serviceAccountId: accountId,
        secretHash: s.hash,
        createdAt: s.createdAt,
        expiresAt: s.expiresAt ?? null,
        lastUsedAt: s.lastUsedAt ?? null,
      })),
    );
  }

  /** `locking`: read as committed now and held until the transaction ends (a locking read; MySQL and MariaDB only). */
  private async load(where: { id: string }, locking = false): Promise<ServiceAccountState[]> {
    return this.withSecrets(await this.manager.getRepository(ServiceAccountSchema).find({ where, ...lockIf(locking) }), locking);
  }

  private async withSecrets(records: ServiceAccountRecord[], locking = false): Promise<ServiceAccountState[]> {
    if (records.length === 0) return [];
    const secrets = await this.manager
      .getRepository(ServiceAccountSecretSchema)
      .find({ where: { serviceAccountId: In(records.map((r) => r.id)) }, order: { createdAt: 'ASC', id: 'ASC' }, ...lockIf(locking) });
    return records.map((record) => toState(record, secrets.filter((s) => s.serviceAccountId === record.id)));
  }
}

function lockIf(locking: boolean): { lock?: { mode: 'pessimistic_write' } } {
  return locking ? { lock: { mode: 'pessimistic_write' } } : {};
}

function toRecord(state: ServiceAccountState): ServiceAccountRecord {
  return {
    id: state.id,
    clientId: state.clientId,
    name: state.name,
    nameKey: serviceAccountNameKey(state.name),
    description: state.description ?? null,
    roleId: state.roleId,
    disabled: state.disabled ? 1 : 0,
    tokensValidFrom: state.tokensValidFrom ?? null,
    jwks: state.keys.length > 0 ? JSON.stringify(state.keys) : null,
    version: state.version,
    createdAt: state.createdAt,
    createdBy: state.createdBy ?? null,
    updatedAt: state.updatedAt ?? null,
    updatedBy: state.updatedBy ?? null,
  };
}

function toState(record: ServiceAccountRecord, secrets: ServiceAccountSecretRecord[]): ServiceAccountState {
  return {
    id: record.id,
    clientId: record.clientId,
    name: record.name,
    ...(record.description !== null ? { description: record.description } : {}),
    roleId: record.roleId,
    disabled: Number(record.disabled) === 1,
    ...(record.tokensValidFrom !== null ? { tokensValidFrom: Number(record.tokensValidFrom) } : {}),
    keys: record.jwks ? (JSON.parse(record.jwks) as PublicJwk[]) : [],
    secrets: secrets.map((s) => ({
      id: s.id,
      hash: s.secretHash,
      createdAt: s.createdAt,
      ...(s.expiresAt ? { expiresAt: s.expiresAt } : {}),
      ...(s.lastUsedAt ? { lastUsedAt: s.lastUsedAt } : {}),
    })),
    version: Number(record.version),
    createdAt: record.createdAt,
    ...(record.createdBy ? { createdBy: record.createdBy } : {}),
    ...(record.updatedAt ? { updatedAt: record.updatedAt } : {}),
    ...(record.updatedBy ? { updatedBy: record.updatedBy } : {}),
  };
}

/**
 * A write of an account's row that a key refused, as the domain says it: its name taken, or its role deleted since
 * the use case read it (the row's one foreign key; SQLite does not name it). A role deleted between the read and the
 * write answered 500 (review H).
 */
function refusedWriteError(error: unknown, state: ServiceAccountState): unknown {
  if (uniqueViolationOn(error) !== null) return new ServiceAccountNameTakenError(state.name);
  const reference = foreignKeyViolationOn(error);
  if (reference !== null && reference.kind !== 'still-referenced') return new RoleNotFoundError(state.roleId);
  return error;
}
