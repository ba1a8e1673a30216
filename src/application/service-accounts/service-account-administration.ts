import type { AuditAction, AuditChange } from '../../domain/audit/audit-entry';
import type { AuditRecorder } from '../audit/audit-recorder';
import type { Role } from '../../domain/roles/role';
import { RoleNotFoundError } from '../../domain/roles/role-not-found.error';
import type { NewSecret, ServiceAccount, ServiceAccountChangeBy } from '../../domain/service-accounts/service-account';
import { NoSuchServiceAccountError, ServiceAccountChangedConcurrentlyError } from '../../domain/service-accounts/service-account.errors';
import type { Actor } from '../auth/actor';
import type { Clock } from '../ports/clock.port';
import type { IdGenerator } from '../ports/id-generator.port';
import type { RoleRepository } from '../ports/role-repository.port';
import type { SecretTokens } from '../ports/secret-tokens.port';
import type { TransactionScope, UnitOfWork } from '../ports/unit-of-work.port';
import { assertMayHandOut } from '../users/user-administration';
import { type ServiceAccountAnswer, toServiceAccountView } from './service-account.view';

/** What every use case that changes a service account is built from. */
export interface ServiceAccountChangeDeps {
  auditRecorder: AuditRecorder;
  roleRepository: RoleRepository;
  unitOfWork: UnitOfWork;
  clock: Clock;
  idGenerator: IdGenerator;
  secretTokens: SecretTokens;
}

export interface ServiceAccountActionInput {
  actor: Actor;
  serviceAccountId: string;
  /** The version the caller last saw (If-Match): refused with ServiceAccountChangedConcurrentlyError when it moved on. */
  expectedVersion?: number;
}

/** A secret handed out once: the secret itself (256 random bits, base64url) and what is stored of it. */
export interface IssuedSecret {
  secret: string;
  stored: NewSecret;
}

/** The base of the use cases that change a service account: the role rules, the target, who changes it when. */
export abstract class ServiceAccountChange {
  protected readonly roles: RoleRepository;
  protected readonly unitOfWork: UnitOfWork;
  protected readonly clock: Clock;
  protected readonly ids: IdGenerator;
  private readonly secretTokens: SecretTokens;
  protected readonly audit: AuditRecorder;

  constructor(deps: ServiceAccountChangeDeps) {
    this.audit = deps.auditRecorder;
    this.roles = deps.roleRepository;
    this.unitOfWork = deps.unitOfWork;
    this.clock = deps.clock;
    this.ids = deps.idGenerator;
    this.secretTokens = deps.secretTokens;
  }

  /** A role by name or `_id`, as an invitation names it; the actor must hold all it grants (the hand-out rule). */
  protected async roleToHandOut(actor: Actor, key: string): Promise<Role> {
    const role = (await this.roles.findByName(key)) ?? (await this.roles.findById(key));
    if (!role) throw new RoleNotFoundError(key);
    assertMayHandOut(actor, role);
    return role;
  }

  /**
   * The account to change, at the version the caller last saw when it names one, and only when the actor
   * holds every permission of its role: someone who could not have handed out that role cannot change,
   * re-key or remove its holder either.
   */
  protected async target(scope: TransactionScope, actor: Actor, id: string, expectedVersion?: number): Promise<ServiceAccount> {
    const account = await scope.serviceAccounts.findForChange(id);
    if (!account) throw new NoSuchServiceAccountError();
    if (expectedVersion !== undefined && expectedVersion !== account.version) throw new ServiceAccountChangedConcurrentlyError();
    const role = (await scope.roles.findById(account.roleId)) ?? { permissions: [] };
    assertMayHandOut(actor, role);
    return account;
  }

  /** The account as it is now in this transaction, with its role as this transaction sees it. */
  protected async answer(scope: TransactionScope, account: ServiceAccount): Promise<ServiceAccountAnswer> {
    const { state } = account.snapshot();
    return { serviceAccount: toServiceAccountView(state, await scope.roles.findById(state.roleId)), version: state.version };
  }

  protected issueSecret(expiresAt?: Date): IssuedSecret {
    const { token, hash } = this.secretTokens.generate();
    return { secret: token, stored: { id: this.ids.next(), hash, ...(expiresAt ? { expiresAt } : {}) } };
  }

  /** Writes the change's entry in its transaction: the account as it was named then. */
  protected async audited(scope: TransactionScope, actor: Actor, account: { id: string; name: string }, action: AuditAction, changes: AuditChange[] = []): Promise<void> {
    const target = { type: 'service_account' as const, id: account.id, snapshot: account.name };
    await this.audit.write(scope.audit, { action, actor: await this.audit.actorOf(actor, scope.users), target, changes });
  }

  /** Runs the change; a refusal (a domain error) is written on its own, since the change's transaction rolled back. */
  protected refusable<T>(actor: Actor, id: string | null, action: AuditAction, change: () => Promise<T>): Promise<T> {
    return this.audit.guard(actor, action, { type: 'service_account', id, snapshot: null }, change);
  }

  protected changeBy(actor: Actor): ServiceAccountChangeBy {
    return { by: actor.userId, now: this.clock.now(), newId: () => this.ids.next() };
  }
}
