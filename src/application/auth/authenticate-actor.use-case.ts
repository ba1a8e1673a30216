import type { RoleRepository } from '../ports/role-repository.port';
import type { UserRepository } from '../ports/user-repository.port';
import type { Actor } from './actor';

/**
 * Turns a verified token's subject into an actor with its role's permissions as they are
 * now, so a removed user or a changed role takes effect without waiting for the token to expire.
 * Returns null when the subject is no longer a joined user.
 */
export class AuthenticateActorUseCase {
  private readonly users: UserRepository;
  private readonly roles: RoleRepository;

  constructor(deps: { userRepository: UserRepository; roleRepository: RoleRepository }) {
    this.users = deps.userRepository;
    this.roles = deps.roleRepository;
  }

  async execute(subject: string): Promise<Actor | null> {
    const user = await this.users.findById(subject);
    if (!user || !user.isJoined) return null;
    const role = await this.roles.findById(user.roleId);
    return { userId: user.id, permissions: role ? role.permissions : [] };
  }
}
