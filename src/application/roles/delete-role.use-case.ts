import { AuditActions } from '../../domain/audit/audit-entry';
import { Permissions } from '../../domain/permissions/permission';
import { RoleNames } from '../../domain/roles/role';
import { requirePermission } from '../auth/actor';
import { type RoleActionInput, RoleChange } from './role-administration';

/**
 * Deletes a custom role nobody holds (pending, active and deactivated users count; erased users'
 * remaining rows move to `member`), recording `RoleDeleted`. Built-in roles stay.
 */
export class DeleteRoleUseCase extends RoleChange {
  execute(input: RoleActionInput): Promise<void> {
    return this.refusable(input.actor, input.roleId, AuditActions.roleDeleted, () => this.remove(input));
  }

  private async remove({ actor, roleId, expectedVersion }: RoleActionInput): Promise<void> {
    requirePermission(actor, Permissions.rolesWrite);
    const member = await this.roles.findByName(RoleNames.member);
    if (!member) throw new Error('the built-in member role is missing');
    await this.inTurn(async (scope) => {
      const { roles, outbox } = scope;
      const role = await this.target(roles, actor, roleId, expectedVersion);
      await this.audited(scope, actor, role, AuditActions.roleDeleted, [{ field: 'permissions', before: role.permissionNames, after: null }]);
      role.delete(this.changeBy(actor));
      await roles.delete(role, member.id);
      await outbox.append(role.pullDomainEvents());
    });
  }
}
