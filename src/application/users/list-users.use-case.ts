import { Permissions } from '../../domain/permissions/permission';
import { type Actor, requirePermission } from '../auth/actor';
import type { RoleRepository } from '../ports/role-repository.port';
import type { UserRepository } from '../ports/user-repository.port';
import { type PageRequest, type Pagination, paginationOf, toSlice } from '../shared/pagination';
import { toUserView, type UserView } from './user.view';

export interface ListUsersInput extends PageRequest {
  actor: Actor;
}

export interface ListUsersResult {
  users: UserView[];
  pagination: Pagination;
}

export class ListUsersUseCase {
  private readonly users: UserRepository;
  private readonly roles: RoleRepository;

  constructor(deps: { userRepository: UserRepository; roleRepository: RoleRepository }) {
    this.users = deps.userRepository;
    this.roles = deps.roleRepository;
  }

  async execute({ actor, page, pageSize }: ListUsersInput): Promise<ListUsersResult> {
    requirePermission(actor, Permissions.usersRead);
    const [{ items, total }, roles] = await Promise.all([
      this.users.list(toSlice({ page, pageSize })),
      this.roles.findAll(),
    ]);
    const byId = new Map(roles.map((role) => [role.id, role]));
    return {
      users: items.map((user) => toUserView(user, byId.get(user.roleId))),
      pagination: paginationOf({ page, pageSize }, total),
    };
  }
}
