import { Permissions } from '../../domain/permissions/permission';
import { UserNotFoundError } from '../../domain/users/user.errors';
import { type Actor, requirePermission } from '../auth/actor';
import type { RoleRepository } from '../ports/role-repository.port';
import type { UserRepository } from '../ports/user-repository.port';
import { toUserDetails, type UserDetails } from './user.view';

/** One user, as the list shows it plus its status, and the version a change may name. */
export class GetUserUseCase {
  private readonly users: UserRepository;
  private readonly roles: RoleRepository;

  constructor(deps: { userRepository: UserRepository; roleRepository: RoleRepository }) {
    this.users = deps.userRepository;
    this.roles = deps.roleRepository;
  }

  async execute({ actor, userId }: { actor: Actor; userId: string }): Promise<UserDetails> {
    requirePermission(actor, Permissions.usersRead);
    const user = await this.users.findById(userId);
    if (!user) throw new UserNotFoundError();
    return toUserDetails(user, (await this.roles.findById(user.roleId)) ?? undefined);
  }
}
