import { AuditActions } from '../../domain/audit/audit-entry';
import { Permissions } from '../../domain/permissions/permission';
import { RoleEntity } from '../../domain/roles/role.entity';
import { type Actor, requirePermission } from '../auth/actor';
import { assertHolds, RoleChange } from './role-administration';
import { type RoleAnswer, toRoleAnswer } from './role.view';

export interface CreateRoleInput {
  actor: Actor;
  name: string;
  /** Each a permission's name or `_id`. */
  permissions: string[];
}

/** A custom role from existing permissions, recorded as `RoleCreated`. Nobody grants what they lack. */
export class CreateRoleUseCase extends RoleChange {
  execute(input: CreateRoleInput): Promise<RoleAnswer> {
    return this.refusable(input.actor, null, AuditActions.roleCreated, () => this.create(input));
  }

  private async create({ actor, name, permissions }: CreateRoleInput): Promise<RoleAnswer> {
    requirePermission(actor, Permissions.rolesWrite);
    const held = await this.resolvePermissions(permissions);
    assertHolds(actor, held.map((p) => p.name));
    return this.inTurn(async (scope) => {
      const { roles, outbox } = scope;
      const role = RoleEntity.create({ id: this.ids.next(), name, permissions: held, ...this.changeBy(actor) });
      await roles.insert(role);
      await this.audited(scope, actor, role, AuditActions.roleCreated, [
        { field: 'name', before: null, after: role.name },
        { field: 'permissions', before: null, after: role.permissionNames },
      ]);
      await outbox.append(role.pullDomainEvents());
      return toRoleAnswer(role.toDetails());
    });
  }
}
