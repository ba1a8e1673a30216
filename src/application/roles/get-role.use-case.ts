import { Permissions } from '../../domain/permissions/permission';
import { NoSuchRoleError } from '../../domain/roles/role.errors';
import { type Actor, requirePermission } from '../auth/actor';
import type { RoleRepository } from '../ports/role-repository.port';
import { type RoleAnswer, toRoleAnswer } from './role.view';

/** One role, with the version a change may name. */
export class GetRoleUseCase {
  private readonly roles: RoleRepository;

  constructor(deps: { roleRepository: RoleRepository }) {
    this.roles = deps.roleRepository;
  }

  async execute({ actor, roleId }: { actor: Actor; roleId: string }): Promise<RoleAnswer> {
    requirePermission(actor, Permissions.rolesRead);
    const role = (await this.roles.findAllDetails()).find((r) => r.id === roleId);
    if (!role) throw new NoSuchRoleError();
    return toRoleAnswer(role);
  }
}
