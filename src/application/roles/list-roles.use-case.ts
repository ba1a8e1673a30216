import { Permissions } from '../../domain/permissions/permission';
import { type Actor, requirePermission } from '../auth/actor';
import type { RoleRepository } from '../ports/role-repository.port';
import { type PageRequest, type Pagination, paginationOf, toSlice } from '../shared/pagination';
import { toRoleView, type RoleView } from './role.view';

/** Every role with its permissions, by name, page by page (as the other lists page). */
export class ListRolesUseCase {
  private readonly roles: RoleRepository;

  constructor(deps: { roleRepository: RoleRepository }) {
    this.roles = deps.roleRepository;
  }

  async execute({ actor, page, pageSize }: PageRequest & { actor: Actor }): Promise<{ roles: RoleView[]; pagination: Pagination }> {
    requirePermission(actor, Permissions.rolesRead);
    const all = await this.roles.findAllDetails();
    const { offset, limit } = toSlice({ page, pageSize });
    return { roles: all.slice(offset, offset + limit).map(toRoleView), pagination: paginationOf({ page, pageSize }, all.length) };
  }
}
