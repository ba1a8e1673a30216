import { UserNotFoundError } from '../../domain/users/user.errors';
import type { RoleRepository } from '../ports/role-repository.port';
import type { UserRepository } from '../ports/user-repository.port';
import { toUserDetails, type UserDetails } from '../users/user.view';
import { type Actor, isServiceAccount } from './actor';
import { NotAUserError } from './session.errors';

/** The caller's own user, as `GET /v1/users/{id}` shows one: a valid token is all it needs, no permission. */
export class GetOwnAccountUseCase {
  private readonly users: UserRepository;
  private readonly roles: RoleRepository;

  constructor(deps: { userRepository: UserRepository; roleRepository: RoleRepository }) {
    this.users = deps.userRepository;
    this.roles = deps.roleRepository;
  }

  async execute({ actor }: { actor: Actor }): Promise<UserDetails> {
    // A service account has no user account: said apart from a user deleted meanwhile (docs/DECISIONS.md).
    if (isServiceAccount(actor)) throw new NotAUserError();
    const user = await this.users.findById(actor.userId);
    if (!user) throw new UserNotFoundError();
    return toUserDetails(user, (await this.roles.findById(user.roleId)) ?? undefined);
  }
}
