import { PermissionDeniedError } from '../../domain/permissions/permission-denied.error';
import { missingPermissions, type Role, RoleNames } from '../../domain/roles/role';
import { RoleNotFoundError } from '../../domain/roles/role-not-found.error';
import type { User } from '../../domain/users/user';
import { LastActiveAdminError, UserChangedConcurrentlyError, UserNotFoundError } from '../../domain/users/user.errors';
import type { AuditAction, AuditChange } from '../../domain/audit/audit-entry';
import { DomainError } from '../../domain/shared/domain-error';
import { type AuditRecorder, userTarget } from '../audit/audit-recorder';
import type { Actor } from '../auth/actor';
import type { Clock } from '../ports/clock.port';
import type { IdGenerator } from '../ports/id-generator.port';
import type { RoleRepository } from '../ports/role-repository.port';
import type { UserRepository } from '../ports/user-repository.port';
import type { TransactionScope, UnitOfWork } from '../ports/unit-of-work.port';

/** What a change reads inside its unit of work: the users, and the roles as its transaction sees them. */
export type ChangeScope = Pick<TransactionScope, 'users' | 'roles'>;

/** What the administration use cases share: finding the user and the roles, and the guard rails. */
export class UserAdministration {
  constructor(private readonly roles: RoleRepository) {}

  /** A role by name or `_id`, as an invitation names it. */
  async resolveRole(key: string): Promise<Role> {
    const role = (await this.roles.findByName(key)) ?? (await this.roles.findById(key));
    if (!role) throw new RoleNotFoundError(key);
    return role;
  }


  /**
   * The user to change, at the version the caller last saw when it names one (a client's If-Match),
   * and only when the actor holds every permission of the user's role: someone who could not have
   * handed out that role cannot change, lock out or remove its holders either.
   */
  async target(scope: ChangeScope, actor: Actor, userId: string, expectedVersion?: number): Promise<{ user: User; role: Role }> {
    const user = await scope.users.findForChange(userId);
    if (!user) throw new UserNotFoundError();
    if (expectedVersion !== undefined && expectedVersion !== user.version) throw new UserChangedConcurrentlyError();
    // A role removed meanwhile reads as one with no permissions.
    const role = (await scope.roles.findById(user.roleId)) ?? { id: user.roleId, name: '', permissions: [] };
    assertMayHandOut(actor, role);
    return { user, role };
  }

  /**
   * Refuses a change that takes an active admin out of the active admins when no other stays. The
   * count is a locking read (UserRepository.countActiveWithRole): two admins deactivating each other at
   * once are counted one after the other, and the second is refused.
   */
  async assertAnotherActiveAdmin({ users, roles }: ChangeScope, user: User): Promise<void> {
    if (user.status !== 'active') return;
    const admin = await roles.findByName(RoleNames.admin);
    if (!admin || user.roleId !== admin.id) return;
    if ((await users.countActiveWithRole(admin.id, user.id)) === 0) throw new LastActiveAdminError();
  }
}

/** Nobody hands out (or acts on the holders of) a role holding permissions they lack. */
export function assertMayHandOut(actor: Actor, role: Pick<Role, 'permissions'>): void {
  const beyond = missingPermissions(actor.permissions, role.permissions);
  if (beyond.length > 0) throw new PermissionDeniedError(beyond);
}

export interface UserActionInput {
  actor: Actor;
  userId: string;
  /** The version the caller last saw (If-Match): refused with UserChangedConcurrentlyError when it moved on. */
  expectedVersion?: number;
}

/** What every use case that changes one user is built from. */
export interface UserChangeDeps {
  auditRecorder: AuditRecorder;
  /** Names a refusal's actor and user in its entry; without it (tests), they are named by id. */
  userRepository?: Pick<UserRepository, 'findById'>;
  roleRepository: RoleRepository;
  unitOfWork: UnitOfWork;
  clock: Clock;
  idGenerator: IdGenerator;
}

/** The base of the use cases that change one user: their dependencies and who changes what, when. */
export abstract class UserChange {
  protected readonly admin: UserAdministration;
  protected readonly unitOfWork: UnitOfWork;
  protected readonly audit: AuditRecorder;
  private readonly clock: Clock;
  private readonly ids: IdGenerator;
  private readonly users: Pick<UserRepository, 'findById'> | undefined;

  constructor(deps: UserChangeDeps) {
    this.users = deps.userRepository;
    this.admin = new UserAdministration(deps.roleRepository);
    this.unitOfWork = deps.unitOfWork;
    this.audit = deps.auditRecorder;
    this.clock = deps.clock;
    this.ids = deps.idGenerator;
  }

  /** Writes the change's entry in its own transaction: the actor named as it is now, the user as it was. */
  protected async audited(scope: TransactionScope, actor: Actor, user: User, action: AuditAction, changes: AuditChange[] = []): Promise<void> {
    await this.audit.write(scope.audit, { action, actor: await this.audit.actorOf(actor, scope.users), target: userTarget(user), changes });
  }

  /** Runs the change; a refusal (a domain error) is written on its own, since the change's transaction rolled back. */
  protected async refusable<T>(actor: Actor, userId: string, action: AuditAction, change: () => Promise<T>): Promise<T> {
    try {
      return await change();
    } catch (error) {
      if (error instanceof DomainError) {
        const users = this.users;
        await this.audit.refusedNamed(actor, action, { type: 'user', id: userId, snapshot: null }, error.code, {
          ...(users ? { users, targetName: async () => { const user = await users.findById(userId); return user ? userTarget(user).snapshot : null; } } : {}),
        });
      }
      throw error;
    }
  }

  /** What a change records about itself: who made it, when, and the ids of the events it raises. */
  protected changeBy(actor: Actor): { by: string; now: Date; newId: () => string } {
    return { by: actor.userId, now: this.clock.now(), newId: () => this.ids.next() };
  }
}
