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
  async execute(input: UpdateRoleInput): Promise<RoleAnswer> {
    const { actor } = input;
    requirePermission(actor, Permissions.rolesWrite);
    const permissions = input.permissions === undefined ? undefined : await this.resolvePermissions(input.permissions);
    if (permissions) assertHolds(actor, permissions.map((p) => p.name));
    return this.unitOfWork.run(async ({ roles, outbox }) => {
      const role = await this.target(roles, actor, input.roleId, input.expectedVersion);
      if (role.change({ name: input.name, permissions, ...this.changeBy(actor) })) {
        await roles.update(role);
        await outbox.append(role.pullDomainEvents());
      }
      return toRoleAnswer(role.toDetails());
    });
  }
}
