import { Permissions } from '../../domain/permissions/permission';
import { RoleNames } from '../../domain/roles/role';
import { requirePermission } from '../auth/actor';
import { type RoleActionInput, RoleChange } from './role-administration';

/**
 * Deletes a custom role nobody holds (pending, active and deactivated users count; erased users'
 * remaining rows move to `member`), recording `RoleDeleted`. Built-in roles stay.
 */
export class DeleteRoleUseCase extends RoleChange {
  async execute({ actor, roleId, expectedVersion }: RoleActionInput): Promise<void> {
    requirePermission(actor, Permissions.rolesWrite);
    const member = await this.roles.findByName(RoleNames.member);
    if (!member) throw new Error('the built-in member role is missing');
    await this.unitOfWork.run(async ({ roles, outbox }) => {
      const role = await this.target(roles, actor, roleId, expectedVersion);
      role.delete(this.changeBy(actor));
      await roles.delete(role, member.id);
      await outbox.append(role.pullDomainEvents());
    });
  }
}
