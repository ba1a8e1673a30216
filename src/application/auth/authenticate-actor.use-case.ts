import type { RoleRepository } from '../ports/role-repository.port';
import type { UserRepository } from '../ports/user-repository.port';
import type { Actor } from './actor';

/** What a verified access token says about its bearer. */
export interface TokenSubject {
  subject: string;
  /** The token's `ver` claim: the user's token version when it was issued. */
  tokenVersion: number;
}

/**
 * Turns a verified token's subject into an actor with its role's permissions as they are
 * now, so a removed user, a changed role or a sign-out takes effect without waiting for the
 * token to expire. Returns null when the subject is no longer an active joined user (deleted,
 * deactivated), or signed out since the token was issued (its token version moved on).
 */
export class AuthenticateActorUseCase {
  private readonly users: UserRepository;
  private readonly roles: RoleRepository;

  constructor(deps: { userRepository: UserRepository; roleRepository: RoleRepository }) {
    this.users = deps.userRepository;
    this.roles = deps.roleRepository;
  }

  async execute({ subject, tokenVersion }: TokenSubject): Promise<Actor | null> {
    // Both at once: every request pays this, and the roles do not depend on which user it is.
    const [user, roles] = await Promise.all([this.users.findById(subject), this.roles.findAll()]);
    if (!user || !user.isJoined || user.status !== 'active' || user.tokenVersion !== tokenVersion) return null;
    // A role missing from the list is looked up again (a repository may read afresh on a miss).
    const role = roles.find((r) => r.id === user.roleId) ?? (await this.roles.findById(user.roleId));
    return { userId: user.id, permissions: role ? role.permissions : [] };
  }
}
