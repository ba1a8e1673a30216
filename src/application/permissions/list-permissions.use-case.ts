import { Permissions, type Permission } from '../../domain/permissions/permission';
import { type Actor, requirePermission } from '../auth/actor';
import type { PermissionFilter, PermissionRepository } from '../ports/permission-repository.port';
import { type PageRequest, type Pagination, paginationOf, toSlice } from '../shared/pagination';

export interface ListPermissionsInput extends PageRequest {
  actor: Actor;
  filter: PermissionFilter;
}

export interface PermissionView {
  _id: string;
  group: string;
  name: string;
}

export class ListPermissionsUseCase {
  private readonly permissions: PermissionRepository;

  constructor(deps: { permissionRepository: PermissionRepository }) {
    this.permissions = deps.permissionRepository;
  }

  async execute({ actor, filter, page, pageSize }: ListPermissionsInput): Promise<{
    permissions: PermissionView[];
    pagination: Pagination;
  }> {
    requirePermission(actor, Permissions.permissionsRead);
    const { items, total } = await this.permissions.list(filter, toSlice({ page, pageSize }));
    return {
      permissions: items.map((p: Permission) => ({ _id: p.id, group: p.group, name: p.name })),
      pagination: paginationOf({ page, pageSize }, total),
    };
  }
}
