import { ANONYMOUS, AuditActions } from '../../domain/audit/audit-entry';
import type { MfaPolicy } from '../mfa/mfa-policy';
import type { AuditRecorder } from '../audit/audit-recorder';
import type { Clock } from '../ports/clock.port';
import type { RefreshToken, RefreshTokenStore } from '../ports/refresh-token-store.port';
import type { SecretTokens } from '../ports/secret-tokens.port';
import type { UserRepository } from '../ports/user-repository.port';
import type { SessionIssuer, SessionTokens } from './session-issuer';
import { InvalidRefreshTokenError } from './session.errors';
import { newestOfNamedFamily } from './token-lookup';

/** A session's own ends, shorter than the refresh token policy's (RefreshSessionUseCase.execute's `within`). */
export interface SessionBounds {
  /** From the family's sign-in. */
  sessionSeconds: number;
  /** From the token's issue (the last exchange). */
  idleSeconds: number;
}

/**
 * Exchanges a refresh token for a new access token and the next refresh token of its family (rotation,
 * RFC 9700 §4.14.2). A token presented after it was used means two parties hold it: the whole family is
 * revoked, so the thief's successor dies with the client's (after `reuseGraceSeconds`, see the policy).
 * A token whose user signed out, changed its password, was deactivated or deleted since it was issued
 * is refused through the token version. Every refusal is the same InvalidRefreshTokenError.
 */
export class RefreshSessionUseCase {
  private readonly users: UserRepository;
  private readonly store: RefreshTokenStore;
  private readonly secrets: SecretTokens;
  private readonly sessions: SessionIssuer;
  private readonly clock: Clock;
  private readonly audit: AuditRecorder;
  private readonly mfaPolicy: MfaPolicy | undefined;

  constructor(deps: {
    /** Absent: no token is ever enrollment-only (MFA_REQUIRED_PERMISSIONS). */
    mfaPolicy?: MfaPolicy;
    auditRecorder: AuditRecorder;
    userRepository: UserRepository;
    refreshTokenStore: RefreshTokenStore;
    secretTokens: SecretTokens;
    sessionIssuer: SessionIssuer;
    clock: Clock;
  }) {
    this.audit = deps.auditRecorder;
    this.users = deps.userRepository;
    this.store = deps.refreshTokenStore;
    this.secrets = deps.secretTokens;
    this.sessions = deps.sessionIssuer;
    this.clock = deps.clock;
    this.mfaPolicy = deps.mfaPolicy;
  }

  /**
   * `within`: shorter bounds than the refresh token policy's for this exchange (the console's session): the family is
   * refused `sessionSeconds` after its sign-in and the token `idleSeconds` after it was issued, whichever comes first
   * (the policy's own ends still apply).
   */
  async execute({ refreshToken, within }: { refreshToken: string; within?: SessionBounds }): Promise<SessionTokens> {
    const found = await this.store.findByHash(this.secrets.hash(refreshToken));
    const now = this.clock.now();
    if (!found) return this.unknown(refreshToken, now);
    if (found.revokedAt !== null) throw new InvalidRefreshTokenError();
    if (found.usedAt !== null) return this.reused(found, found.usedAt, now);
    if (found.expiresAt <= now || found.idleExpiresAt <= now) throw new InvalidRefreshTokenError();
    if (within && this.outlived(found, within, now)) throw new InvalidRefreshTokenError();

    const user = await this.users.findById(found.userId);
    if (!user || !user.isJoined || user.status !== 'active' || user.tokenVersion !== found.tokenVersion) {
      throw new InvalidRefreshTokenError();
    }
    // The policy is read again (enrolled since, the session's next access token is a full one), and before the
    // rotation: once it commits, no database read stands between it and the answer (a fault there would leave the
    // client without the successor it alone may use, and its retry would be taken for a reuse).
    const enrollmentOnly = (await this.mfaPolicy?.enrollmentOnly(user)) ?? false;
    const next = this.sessions.successor(found, now);
    // Of two exchanges of this token on any replicas, exactly one gets here with true; the other is a reuse.
    // The family's other used tokens were used by the time this one was issued: when that is within the grace, none
    // can go yet, and the exchange writes nothing more (a client refreshing again at once); else they go with it.
    const forgetUsedBefore = this.sessions.forgetUsedBefore(now);
    const forget = found.createdAt < forgetUsedBefore ? { forgetUsedBefore } : {};
    if (!(await this.store.rotate(found.id, now, next.record, forget))) return this.reused(found, now, now);
    return { accessToken: await this.sessions.accessToken(user.id, found.tokenVersion, { enrollmentOnly }), refreshToken: next.token };
  }

  /** Past `within`'s bounds: the family's sign-in is its end less the policy's lifetime (every successor keeps the end). */
  private outlived(token: RefreshToken, within: SessionBounds, now: Date): boolean {
    const signedInAt = token.expiresAt.getTime() - this.sessions.policy.absoluteTtlSeconds * 1000;
    return now.getTime() >= signedInAt + within.sessionSeconds * 1000 || now.getTime() >= token.createdAt.getTime() + within.idleSeconds * 1000;
  }

  /**
   * A token no row holds. One that names a family still alive is a used token whose row went after its use (past the
   * grace: SessionIssuer.forgetUsedBefore), presented again: a reuse, the family revoked. Refused either way.
   */
  private async unknown(refreshToken: string, now: Date): Promise<never> {
    const newest = await newestOfNamedFamily(this.store, refreshToken);
    if (newest && newest.revokedAt === null && newest.expiresAt > now) return this.reused(newest, null, now);
    throw new InvalidRefreshTokenError();
  }

  /** A used token again: past the grace after its use (`usedAt`; null: long past), the family is revoked. Refused either way. */
  private async reused(token: RefreshToken, usedAt: Date | null, now: Date): Promise<never> {
    const revoke = usedAt === null || now.getTime() - usedAt.getTime() >= this.sessions.policy.reuseGraceSeconds * 1000;
    if (revoke) await this.store.revokeFamily(token.familyId, now);
    await this.audit.record({
      action: AuditActions.refreshReuseDetected,
      outcome: 'failure',
      code: revoke ? 'family_revoked' : 'within_grace',
      actor: ANONYMOUS,
      target: { type: 'user', id: token.userId, snapshot: null },
      changes: revoke ? [{ field: 'session_family', before: 'active', after: 'revoked' }] : [],
    });
    throw new InvalidRefreshTokenError();
  }
}
