import { AuditActions } from '../../domain/audit/audit-entry';
import type { AuditRecorder } from '../audit/audit-recorder';
import type { Clock } from '../ports/clock.port';
import type { Actor } from './actor';
import type { TokenSubject } from './authenticate-actor.use-case';
import type { SignOutUseCase } from './sign-out.use-case';
import type { RefreshToken } from '../ports/refresh-token-store.port';
import { currentUser, findToken, newestOfNamedFamily, type TokenLookupDeps } from './token-lookup';

/**
 * What a revocation did. RFC 7009 §2.2 answers the same 200 to a token revoked and to one unknown or
 * already invalid, so only `unsupported` changes the answer (§2.2.1: unsupported_token_type).
 */
export type RevocationOutcome = 'revoked' | 'not-found' | 'unsupported';

/**
 * Token revocation (RFC 7009). The token is the proof: whoever holds it may end it, as whoever holds a
 * refresh token can already end its family by presenting it twice, and whoever holds an access token can
 * sign its user out.
 * - A refresh token: its whole family is revoked (every token of that sign-in, used, live or successor),
 *   whatever state it is in, a used one whose row went included (its token names its family); the family's
 *   access tokens live out their short lifetime. Audited as a sign-out (`auth.signed_out`,
 *   `refresh_token_revoked`) when it ended tokens.
 * - A user's access token that is active now: the user is signed out (its token version moves on), ending
 *   every access and refresh token of the user, as POST /v1/auth/signout with that token does. An access
 *   token alone cannot be ended: it carries nothing narrower than the user's token version. A token that is
 *   no longer active ends nothing, so an old leaked token cannot sign its user out of newer sessions.
 * - A service's access token (`client_id`) still active: unsupported; the account is disabled, or its secret
 *   deleted. One no longer active (the account disabled or deleted since) is already invalid: 200, as any other.
 */
export class RevokeTokenUseCase {
  private readonly deps: TokenLookupDeps;
  private readonly signOut: SignOutUseCase;
  private readonly clock: Clock;
  private readonly actors: { execute(token: TokenSubject): Promise<Actor | null> };
  private readonly audit: AuditRecorder;

  /** `authenticateActor`: the API's resolution of a token's subject, uncached, as introspection's. */
  constructor(
    deps: TokenLookupDeps & { signOut: SignOutUseCase; clock: Clock; auditRecorder: AuditRecorder; authenticateActor: { execute(token: TokenSubject): Promise<Actor | null> } },
  ) {
    this.deps = deps;
    this.signOut = deps.signOut;
    this.clock = deps.clock;
    this.actors = deps.authenticateActor;
    this.audit = deps.auditRecorder;
  }

  async execute({ token }: { token: string }): Promise<RevocationOutcome> {
    const found = await findToken(this.deps, token);
    if (found.kind === 'none') {
      // A used refresh token whose row went after its use (RefreshSessionUseCase.unknown): its family, as any of its tokens.
      const newest = await newestOfNamedFamily(this.deps.refreshTokenStore, token);
      return newest ? this.endFamily(newest) : 'not-found';
    }
    if (found.kind === 'refresh') return this.endFamily(found.record);
    const { claims } = found;
    if (claims.kind === 'service') {
      const active = await this.actors.execute({ kind: 'service', subject: claims.subject, clientId: claims.clientId, scope: claims.scope, issuedAt: claims.issuedAt });
      return active ? 'unsupported' : 'not-found';
    }
    const user = await currentUser(this.deps.userRepository, claims.subject, claims.tokenVersion);
    if (!user) return 'not-found';
    await this.signOut.execute({ actor: { userId: user.id, permissions: [] } });
    return 'revoked';
  }

  /** A sign-out of that sign-in: audited as one when it ended tokens (a family revoked already ends nothing). */
  private async endFamily(token: RefreshToken): Promise<RevocationOutcome> {
    const ended = await this.deps.refreshTokenStore.revokeFamily(token.familyId, this.clock.now());
    if (ended > 0) {
      const who = await this.audit.actorOf({ userId: token.userId, permissions: [] }, this.deps.userRepository);
      await this.audit.record({ action: AuditActions.signedOut, code: 'refresh_token_revoked', actor: who, target: { type: 'user', id: token.userId, snapshot: who.name } });
    }
    return 'revoked';
  }
}
