import { AuditActions } from '../../domain/audit/audit-entry';
import { Permissions } from '../../domain/permissions/permission';
import type { Role } from '../../domain/roles/role';
import { parseDisplayName } from '../../domain/users/display-name';
import { type Actor, requirePermission } from '../auth/actor';
import { assertMayHandOut, UserChange } from './user-administration';
import { toUserDetails, type UserDetails } from './user.view';

export interface UpdateUserInput {
  actor: Actor;
  userId: string;
  name?: string;
  /** A role's name or `_id`. */
  role?: string;
  /** The version the caller last saw (If-Match): refused with UserChangedConcurrentlyError when it moved on. */
  expectedVersion?: number;
}

/**
 * Changes a user's name and/or role, recording `UserUpdated` and `UserRoleChanged`. A role change
 * takes effect on the user's next request (permissions are read per request). Nobody hands out a role
 * holding permissions they lack, and the last active admin keeps the admin role.
 */
export class UpdateUserUseCase extends UserChange {
  async execute(input: UpdateUserInput): Promise<UserDetails> {
    const action = input.role === undefined ? AuditActions.userUpdated : AuditActions.userRoleChanged;
    return this.refusable(input.actor, input.userId, action, () => this.change(input));
  }

  private async change(input: UpdateUserInput): Promise<UserDetails> {
    const { actor } = input;
    requirePermission(actor, Permissions.usersUpdate);
    const name = input.name === undefined ? undefined : parseDisplayName(input.name);
    const role: Role | undefined = input.role === undefined ? undefined : await this.admin.resolveRole(input.role);
    if (role) assertMayHandOut(actor, role);

    return this.unitOfWork.run(async (scope) => {
      const { users, outbox } = scope;
      const { user, role: previousRole } = await this.admin.target(scope, actor, input.userId, input.expectedVersion);
      if (role && role.id !== user.roleId) await this.admin.assertAnotherActiveAdmin(scope, user);
      const before = { name: user.name ?? null, roleId: user.roleId };
      const changed = user.update({ name, role, previousRole, ...this.changeBy(actor) });
      if (changed) {
        if (before.name !== (user.name ?? null)) {
          await this.audited(scope, actor, user, AuditActions.userUpdated, [{ field: 'name', before: before.name, after: user.name ?? null }]);
        }
        if (role && before.roleId !== user.roleId) {
          await this.audited(scope, actor, user, AuditActions.userRoleChanged, [{ field: 'role', before: previousRole.name, after: role.name }]);
        }
        await users.update(user);
        await outbox.append(user.pullDomainEvents());
      }
      return toUserDetails(user, role ?? previousRole);
    });
  }
}
