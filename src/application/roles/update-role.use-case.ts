import { AuditActions, changedFields } from '../../domain/audit/audit-entry';
import { Permissions } from '../../domain/permissions/permission';
import { requirePermission } from '../auth/actor';
import { assertHolds, type RoleActionInput, RoleChange } from './role-administration';
import { type RoleAnswer, toRoleAnswer } from './role.view';

export interface UpdateRoleInput extends RoleActionInput {
  name?: string;
  /** The role's whole new set: each a permission's name or `_id`. */
  permissions?: string[];
}

/**
 * Renames a role and/or replaces its permissions, recording `RoleChanged`. Its holders have the new
 * permissions on their next request, on every replica. The caller holds every permission of the role
 * now and of the new set.
 */
export class UpdateRoleUseCase extends RoleChange {
  execute(input: UpdateRoleInput): Promise<RoleAnswer> {
    return this.refusable(input.actor, input.roleId, AuditActions.roleUpdated, () => this.change(input));
  }

  private async change(input: UpdateRoleInput): Promise<RoleAnswer> {
    const { actor } = input;
    requirePermission(actor, Permissions.rolesWrite);
    const permissions = input.permissions === undefined ? undefined : await this.resolvePermissions(input.permissions);
    if (permissions) assertHolds(actor, permissions.map((p) => p.name));
    return this.inTurn(async (scope) => {
      const { roles, outbox } = scope;
      const role = await this.target(roles, actor, input.roleId, input.expectedVersion);
      const before = { id: role.id, name: role.name, permissions: role.permissionNames };
      if (role.change({ name: input.name, permissions, ...this.changeBy(actor) })) {
        await roles.update(role);
        const changes = changedFields({ name: before.name, permissions: before.permissions }, { name: role.name, permissions: role.permissionNames });
        await this.audited(scope, actor, before, AuditActions.roleUpdated, changes);
        await outbox.append(role.pullDomainEvents());
      }
      return toRoleAnswer(role.toDetails());
    });
  }
}
