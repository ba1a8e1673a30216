import type { RoleRepository } from '../ports/role-repository.port';
import type { ServiceAccountRepository } from '../ports/service-account-repository.port';
import type { UserRepository } from '../ports/user-repository.port';
import { type Actor, narrowedToScope, takesTokenIssuedAt } from './actor';

/** What a verified user's access token says about its bearer. */
export interface UserTokenSubject {
  kind?: 'user';
  subject: string;
  /** The token's `ver` claim: the user's token version when it was issued. */
  tokenVersion: number;
  /** The token's `mfa_enrollment` claim (#24): it may only enroll a second factor and read `/v1/me`. */
  enrollmentOnly?: boolean;
}

/** What a verified service token (client credentials grant) says about its bearer. */
export interface ServiceTokenSubject {
  kind: 'service';
  /** The service account's id (`sub`). */
  subject: string;
  /** The token's `client_id` claim: must still be the account's. */
  clientId: string;
  /** The token's `scope`: the permissions it may use; absent: all its role holds. */
  scope?: readonly string[];
  /**
   * The token's `iat` (seconds): a token issued before the account's last disabling is refused, enabled again or
   * not. Absent only where the account is resolved for all its tokens at once (a cache, which checks each token's
   * against the actor's `tokensValidFrom`).
   */
  issuedAt?: number;
}

/** What a verified access token says about its bearer; a user's token has no `kind` (or `user`). */
export type TokenSubject = UserTokenSubject | ServiceTokenSubject;

export const isServiceTokenSubject = (token: TokenSubject): token is ServiceTokenSubject => token.kind === 'service';

/**
 * Turns a verified token's subject into an actor with its role's permissions as they are
 * now, so a removed user, a changed role or a sign-out takes effect without waiting for the
 * token to expire. Returns null when the subject is no longer an active joined user (deleted,
 * deactivated), or signed out since the token was issued (its token version moved on).
 * A service token resolves to its service account (never a user: the two are looked up in their own
 * tables by the token's kind): null when it was deleted or disabled, or its client id is not the
 * token's, or the token was issued before the account's last disabling; its permissions are its role's now, narrowed to the token's scope.
 */
export class AuthenticateActorUseCase {
  private readonly users: UserRepository;
  private readonly roles: RoleRepository;
  private readonly serviceAccounts: ServiceAccountRepository | undefined;

  constructor(deps: { userRepository: UserRepository; roleRepository: RoleRepository; serviceAccountRepository?: ServiceAccountRepository }) {
    this.users = deps.userRepository;
    this.roles = deps.roleRepository;
    this.serviceAccounts = deps.serviceAccountRepository;
  }

  async execute(token: TokenSubject): Promise<Actor | null> {
    if (isServiceTokenSubject(token)) return this.serviceAccount(token);
    const { subject, tokenVersion } = token;
    // Both at once: every request pays this, and the roles do not depend on which user it is.
    const [user, roles] = await Promise.all([this.users.findById(subject), this.roles.findAll()]);
    if (!user || !user.isJoined || user.status !== 'active' || user.tokenVersion !== tokenVersion) return null;
    // A role missing from the list is looked up again (a repository may read afresh on a miss).
    const role = roles.find((r) => r.id === user.roleId) ?? (await this.roles.findById(user.roleId));
    return { userId: user.id, permissions: role ? role.permissions : [] };
  }

  private async serviceAccount(token: ServiceTokenSubject): Promise<Actor | null> {
    if (!this.serviceAccounts) return null;
    const [account, roles] = await Promise.all([this.serviceAccounts.findById(token.subject), this.roles.findAll()]);
    if (!account || account.disabled || account.clientId !== token.clientId) return null;
    const role = roles.find((r) => r.id === account.roleId) ?? (await this.roles.findById(account.roleId));
    const actor: Actor = {
      userId: account.id,
      clientId: account.clientId,
      permissions: role ? role.permissions : [],
      ...(account.tokensValidFrom !== undefined ? { tokensValidFrom: account.tokensValidFrom } : {}),
    };
    return takesTokenIssuedAt(actor, token.issuedAt) ? narrowedToScope(actor, token.scope) : null;
  }
}
