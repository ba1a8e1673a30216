import { Permissions } from '../../domain/permissions/permission';
import type { RoleRepository } from '../ports/role-repository.port';
import { type Actor, requirePermission } from './actor';
import type { TokenSubject } from './authenticate-actor.use-case';
import { currentUser, findToken, type TokenLookupDeps } from './token-lookup';

/** RFC 7662 §2.2's answer. Inactive says nothing more, whatever the reason. */
export type Introspection =
  | { active: false }
  | {
      active: true;
      sub: string;
      /** A service's token: its client id. */
      client_id?: string;
      /** The permissions of the subject's role now, space-separated (RFC 9068's form). */
      scope: string;
      exp: number;
      iat: number;
      iss: string;
      aud?: string;
      /** RFC 7662 §2.2: RFC 6749 §5.1's token type, what the token endpoint answered with it. */
      token_type: 'Bearer';
      /** A user's token: the user's username. */
      username?: string;
      /** A user's token that may only enroll a second factor (MFA_REQUIRED_PERMISSIONS, #24): its scope is empty. */
      mfa_enrollment?: true;
    };

/** Who asks: a service account whose client credentials were verified, and its role. */
export interface IntrospectionCaller {
  id: string;
  roleId: string;
}

const INACTIVE: Introspection = { active: false };

/**
 * Token introspection (RFC 7662): whether a token is valid *now*, and what it stands for. A token is
 * active when the API would accept it as a bearer token at this moment: an access token whose signature
 * and claims verify and whose subject is still signed in at its token version. A refresh token is never
 * active: the API refuses it, and a resource server that checks `active` must not take it for an access
 * token. Every check reads the database (the user; the role through the role cache, which follows the role
 * catalogue's revision), so a sign-out, deactivation, deletion or password change on any replica makes the
 * token inactive at once. The caller must hold `tokens:introspect`.
 */
export class IntrospectTokenUseCase {
  private readonly deps: TokenLookupDeps;
  private readonly actors: { execute(token: TokenSubject): Promise<Actor | null> };
  private readonly roles: RoleRepository;

  /**
   * `authenticateActor`: the API's resolution of a token's subject, uncached (a service token is active while its
   * account is enabled, with the same client id).
   */
  constructor(
    deps: TokenLookupDeps & {
      authenticateActor: { execute(token: TokenSubject): Promise<Actor | null> };
      roleRepository: RoleRepository;
    },
  ) {
    this.deps = deps;
    this.actors = deps.authenticateActor;
    this.roles = deps.roleRepository;
  }

  async execute({ caller, token }: { caller: IntrospectionCaller; token: string }): Promise<Introspection> {
    const callerRole = await this.roles.findById(caller.roleId);
    requirePermission({ userId: caller.id, permissions: callerRole?.permissions ?? [] }, Permissions.tokensIntrospect);

    const found = await findToken(this.deps, token);
    // A refresh token is no bearer token: the API refuses it, so introspection does too (docs/DECISIONS.md).
    if (found.kind !== 'access') return INACTIVE;
    const { claims } = found;
    const common = { active: true as const, sub: claims.subject, exp: claims.expiresAt, iat: claims.issuedAt, iss: claims.issuer, aud: claims.audience, token_type: 'Bearer' as const };
    if (claims.kind === 'service') {
      // A service's token: active when the API's own authentication takes it now (the account enabled, the same
      // client id); its scope is its role's permissions now, narrowed to the token's.
      const actor = await this.actors.execute({ kind: 'service', subject: claims.subject, clientId: claims.clientId, scope: claims.scope, issuedAt: claims.issuedAt });
      return actor ? { ...common, client_id: claims.clientId, scope: actor.permissions.join(' ') } : INACTIVE;
    }
    const user = await currentUser(this.deps.userRepository, claims.subject, claims.tokenVersion);
    if (!user) return INACTIVE;
    // An enrollment-only token can do nothing on the API but enroll a factor: no permission is its, whatever the role.
    const scope = claims.enrollmentOnly ? '' : await this.scopeOf(user.roleId);
    return { ...common, scope, ...(user.username ? { username: user.username } : {}), ...(claims.enrollmentOnly ? { mfa_enrollment: true as const } : {}) };
  }

  private async scopeOf(roleId: string): Promise<string> {
    const role = await this.roles.findById(roleId);
    return role ? role.permissions.join(' ') : '';
  }
}
