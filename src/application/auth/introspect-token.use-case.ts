import { Permissions } from '../../domain/permissions/permission';
import type { MfaPolicy } from '../mfa/mfa-policy';
import type { Clock } from '../ports/clock.port';
import type { RoleRepository } from '../ports/role-repository.port';
import { type Actor, requirePermission } from './actor';
import type { TokenSubject } from './authenticate-actor.use-case';
import { currentUser, findToken, isUsable, type TokenLookupDeps } from './token-lookup';

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
      token_type: 'Bearer' | 'refresh_token';
      /** A user's token: the user's username. */
      username?: string;
      /**
       * A user's token that may only enroll a second factor (MFA_REQUIRED_PERMISSIONS, #24): its scope is empty. For a
       * refresh token: the access tokens it would give now are such.
       */
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
 * active when the API would accept it at this moment: an access token whose signature and claims verify
 * and whose subject is still signed in at its token version; a refresh token that an exchange would
 * take. Every check reads the database (the user, the refresh token; the role through the role cache,
 * which follows the role catalogue's revision), so a sign-out, deactivation, deletion, password change or
 * revocation on any replica makes the token inactive at once. The caller must hold `tokens:introspect`.
 */
export class IntrospectTokenUseCase {
  private readonly deps: TokenLookupDeps;
  private readonly actors: { execute(token: TokenSubject): Promise<Actor | null> };
  private readonly roles: RoleRepository;
  private readonly clock: Clock;
  private readonly issuer: string;
  private readonly mfaPolicy: MfaPolicy | undefined;

  /**
   * `authenticateActor`: the API's resolution of a token's subject, uncached (a service token is active while its
   * account is enabled, with the same client id).
   */
  constructor(
    deps: TokenLookupDeps & {
      authenticateActor: { execute(token: TokenSubject): Promise<Actor | null> };
      roleRepository: RoleRepository;
      clock: Clock;
      issuer: string;
      /** MFA_REQUIRED_PERMISSIONS (#24): a refresh token's scope is what its next access token would carry. */
      mfaPolicy?: MfaPolicy;
    },
  ) {
    this.mfaPolicy = deps.mfaPolicy;
    this.deps = deps;
    this.actors = deps.authenticateActor;
    this.roles = deps.roleRepository;
    this.clock = deps.clock;
    this.issuer = deps.issuer;
  }

  async execute({ caller, token }: { caller: IntrospectionCaller; token: string }): Promise<Introspection> {
    const callerRole = await this.roles.findById(caller.roleId);
    requirePermission({ userId: caller.id, permissions: callerRole?.permissions ?? [] }, Permissions.tokensIntrospect);

    const found = await findToken(this.deps, token);
    if (found.kind === 'none') return INACTIVE;
    if (found.kind === 'refresh') {
      const { record } = found;
      if (!isUsable(record, this.clock.now())) return INACTIVE;
      const user = await currentUser(this.deps.userRepository, record.userId, record.tokenVersion);
      if (!user) return INACTIVE;
      // A refresh gives an enrollment-only token while the user's role needs a factor the user does not hold.
      const enrollmentOnly = (await this.mfaPolicy?.enrollmentOnly(user)) ?? false;
      return {
        active: true,
        sub: user.id,
        scope: enrollmentOnly ? '' : await this.scopeOf(user.roleId),
        ...(enrollmentOnly ? { mfa_enrollment: true as const } : {}),
        exp: seconds(record.expiresAt < record.idleExpiresAt ? record.expiresAt : record.idleExpiresAt),
        iat: seconds(record.createdAt),
        iss: this.issuer,
        token_type: 'refresh_token',
        ...(user.username ? { username: user.username } : {}),
      };
    }

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

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);
