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
  async execute({ actor, name, permissions }: CreateRoleInput): Promise<RoleAnswer> {
    requirePermission(actor, Permissions.rolesWrite);
    const held = await this.resolvePermissions(permissions);
    assertHolds(actor, held.map((p) => p.name));
    return this.unitOfWork.run(async ({ roles, outbox }) => {
      const role = RoleEntity.create({ id: this.ids.next(), name, permissions: held, ...this.changeBy(actor) });
      await roles.insert(role);
      await outbox.append(role.pullDomainEvents());
      return toRoleAnswer(role.toDetails());
    });
  }
}
