import type { AuditAction, AuditChange } from '../../domain/audit/audit-entry';
import { DomainError } from '../../domain/shared/domain-error';
import type { AuditRecorder } from '../audit/audit-recorder';
import { PermissionDeniedError } from '../../domain/permissions/permission-denied.error';
import { missingPermissions } from '../../domain/roles/role';
import type { HeldPermission, RoleChangeBy, RoleEntity } from '../../domain/roles/role.entity';
import { NoSuchRoleError, PermissionNotFoundError, RoleChangedConcurrentlyError } from '../../domain/roles/role.errors';
import type { Actor } from '../auth/actor';
import type { Clock } from '../ports/clock.port';
import type { IdGenerator } from '../ports/id-generator.port';
import type { PermissionRepository } from '../ports/permission-repository.port';
import type { RoleRepository, RoleStore } from '../ports/role-repository.port';
import type { TransactionScope, UnitOfWork } from '../ports/unit-of-work.port';
import type { UserRepository } from '../ports/user-repository.port';

/** What every use case that changes a role is built from. */
export interface RoleChangeDeps {
  auditRecorder: AuditRecorder;
  /** Names a refusal's actor in its entry; without it (tests), by id. */
  userRepository?: Pick<UserRepository, 'findById'>;
  roleRepository: RoleRepository;
  permissionRepository: PermissionRepository;
  unitOfWork: UnitOfWork;
  clock: Clock;
  idGenerator: IdGenerator;
}

/** The base of the role-changing use cases: permissions resolved, the target read, and who changes it when. */
export abstract class RoleChange {
  protected readonly roles: RoleRepository;
  protected readonly unitOfWork: UnitOfWork;
  private readonly permissions: PermissionRepository;
  private readonly clock: Clock;
  protected readonly ids: IdGenerator;
  protected readonly audit: AuditRecorder;

  private readonly users: Pick<UserRepository, 'findById'> | undefined;

  constructor(deps: RoleChangeDeps) {
    this.users = deps.userRepository;
    this.audit = deps.auditRecorder;
    this.roles = deps.roleRepository;
    this.permissions = deps.permissionRepository;
    this.unitOfWork = deps.unitOfWork;
    this.clock = deps.clock;
    this.ids = deps.idGenerator;
  }

  /** Each key a permission's name or `_id`; the unknown ones are named in one PermissionNotFoundError. */
  protected async resolvePermissions(keys: readonly string[]): Promise<HeldPermission[]> {
    const catalogue = await this.permissions.all();
    const byKey = new Map<string, HeldPermission>();
    for (const p of catalogue) {
      byKey.set(p.id, { id: p.id, name: p.name });
      byKey.set(p.name, { id: p.id, name: p.name });
    }
    const unknown = keys.filter((key) => !byKey.has(key));
    if (unknown.length > 0) throw new PermissionNotFoundError([...new Set(unknown)]);
    return keys.map((key) => byKey.get(key)!);
  }

  /** The role to change, at the version the caller last saw when it names one, and only if the actor holds all it grants. */
  protected async target(store: RoleStore, actor: Actor, roleId: string, expectedVersion?: number): Promise<RoleEntity> {
    const role = await store.findForChange(roleId);
    if (!role) throw new NoSuchRoleError();
    if (expectedVersion !== undefined && expectedVersion !== role.version) throw new RoleChangedConcurrentlyError();
    assertHolds(actor, role.permissionNames);
    return role;
  }

  /**
   * The change's transaction, in the process's turn of role changes (RunOptions.turn): they take turns on the role
   * catalogue's row anyway, and waiting for it in line holds no connection of the pool.
   */
  protected inTurn<T>(work: (scope: TransactionScope) => Promise<T>): Promise<T> {
    return this.unitOfWork.run(work, { turn: 'roles' });
  }

  /** Writes the change's entry in its transaction: the role as it was (its id and name then). */
  protected async audited(scope: TransactionScope, actor: Actor, role: { id: string; name: string }, action: AuditAction, changes: AuditChange[] = []): Promise<void> {
    const target = { type: 'role' as const, id: role.id, snapshot: role.name };
    await this.audit.write(scope.audit, { action, actor: await this.audit.actorOf(actor, scope.users), target, changes });
  }

  /** Runs the change; a refusal (a domain error) is written on its own, since the change's transaction rolled back. */
  protected async refusable<T>(actor: Actor, roleId: string | null, action: AuditAction, change: () => Promise<T>): Promise<T> {
    try {
      return await change();
    } catch (error) {
      if (error instanceof DomainError) {
        await this.audit.refusedNamed(actor, action, { type: 'role', id: roleId, snapshot: null }, error.code, {
          ...(this.users ? { users: this.users } : {}),
          ...(roleId !== null ? { targetName: async () => (await this.roles.findById(roleId))?.name ?? null } : {}),
        });
      }
      throw error;
    }
  }

  protected changeBy(actor: Actor): RoleChangeBy {
    return { by: actor.userId, now: this.clock.now(), newId: () => this.ids.next() };
  }
}

/** Nobody creates, edits or removes a role granting permissions they lack (the invite rule). */
export function assertHolds(actor: Actor, permissions: readonly string[]): void {
  const beyond = missingPermissions(actor.permissions, permissions);
  if (beyond.length > 0) throw new PermissionDeniedError(beyond);
}

export interface RoleActionInput {
  actor: Actor;
  roleId: string;
  /** The version the caller last saw (If-Match): refused with RoleChangedConcurrentlyError when it moved on. */
  expectedVersion?: number;
}
