import { ANONYMOUS, AuditActions } from '../../domain/audit/audit-entry';
import type { MfaPolicy } from '../mfa/mfa-policy';
import type { AuditRecorder } from '../audit/audit-recorder';
import type { Clock } from '../ports/clock.port';
import type { RefreshToken, RefreshTokenStore } from '../ports/refresh-token-store.port';
import type { SecretTokens } from '../ports/secret-tokens.port';
import type { UserRepository } from '../ports/user-repository.port';
import type { SessionIssuer, SessionTokens } from './session-issuer';
import { InvalidRefreshTokenError } from './session.errors';

/**
 * How long after its use a token presented again may be answered with its successor again, while that successor is
 * unused: long enough for a client's retries through a database outage, short against a thief (below).
 */
export const LOST_ANSWER_WINDOW_SECONDS = 300;

/**
 * Exchanges a refresh token for a new access token and the next refresh token of its family (rotation,
 * RFC 9700 §4.14.2). A token presented after it was used means two parties hold it: the whole family is
 * revoked, so the thief's successor dies with the client's (after `reuseGraceSeconds`, see the policy).
 * A token whose user signed out, changed its password, was deactivated or deleted since it was issued
 * is refused through the token version. Every refusal is the same InvalidRefreshTokenError.
 *
 * One exception to the reuse rule: an exchange whose answer was lost. The rotation committed, then the answer never
 * reached the client (the connection to the database cut between its commit and its acknowledgement, a proxy
 * dropping the response), and the client, told 503 or nothing, retries with the same token. The successor is derived
 * from the presented token (SuccessorTokens), so within LOST_ANSWER_WINDOW_SECONDS of the use, while that successor
 * is still unused, the same token answers the same successor again (and a new access token): no second branch, no
 * write, no alarm. Once the successor has been used, or the window is past, it is a reuse as before. A thief holding
 * the used token gets in that window what the client got, one successor for both; the first of the two to use it
 * makes the other's use a reuse, which revokes the family, as RFC 9700 asks of two parties holding one token. The
 * console's exchanges (`repeatable: false`) never answer again: there the successor lives in an HttpOnly cookie that a
 * script which saw the used token must not be able to read through it.
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

  /** `repeatable` (default true): a retry of an exchange whose answer was lost is answered again (see above). */
  async execute({ refreshToken, repeatable = true }: { refreshToken: string; repeatable?: boolean }): Promise<SessionTokens> {
    const found = await this.store.findByHash(this.secrets.hash(refreshToken));
    const now = this.clock.now();
    if (!found || found.revokedAt !== null) throw new InvalidRefreshTokenError();
    if (found.usedAt !== null) {
      const again = repeatable ? await this.answerAgain(found, found.usedAt, refreshToken, now) : null;
      return again ?? this.reused(found, found.usedAt, now);
    }
    if (found.expiresAt <= now || found.idleExpiresAt <= now) throw new InvalidRefreshTokenError();

    const user = await this.currentHolder(found);
    // The policy is read again (enrolled since, the session's next access token is a full one), and before the
    // rotation: once it commits, nothing that can fail stands between it and the answer.
    const enrollmentOnly = (await this.mfaPolicy?.enrollmentOnly(user)) ?? false;
    const next = this.sessions.successor(found, now, repeatable ? refreshToken : undefined);
    // Of two exchanges of this token on any replicas, exactly one gets here with true; the other is a reuse.
    if (!(await this.store.rotate(found.id, now, next.record))) {
      const again = repeatable ? await this.answerAgain(found, now, refreshToken, now) : null;
      return again ?? this.reused(found, now, now);
    }
    return { accessToken: await this.sessions.accessToken(user.id, found.tokenVersion, { enrollmentOnly }), refreshToken: next.token };
  }

  /** The token's user, while it may still renew: joined, active, and not signed out since the token was issued. */
  private async currentHolder(token: RefreshToken) {
    const user = await this.users.findById(token.userId);
    if (!user || !user.isJoined || user.status !== 'active' || user.tokenVersion !== token.tokenVersion) {
      throw new InvalidRefreshTokenError();
    }
    return user;
  }

  /**
   * The answer of an exchange of `used` whose answer was lost: its derived successor again, when that successor is
   * stored, of the same family, unused, unrevoked and unexpired, and the use was at most LOST_ANSWER_WINDOW_SECONDS
   * ago; null otherwise (then it is a reuse).
   */
  private async answerAgain(used: RefreshToken, usedAt: Date, presented: string, now: Date): Promise<SessionTokens | null> {
    if (now.getTime() - usedAt.getTime() > LOST_ANSWER_WINDOW_SECONDS * 1000) return null;
    const derived = this.sessions.derivedSuccessor(presented);
    if (!derived) return null;
    const successor = await this.store.findByHash(derived.hash);
    if (!successor || successor.familyId !== used.familyId || successor.usedAt !== null || successor.revokedAt !== null) return null;
    if (successor.expiresAt <= now || successor.idleExpiresAt <= now) return null;
    const user = await this.currentHolder(successor);
    const enrollmentOnly = (await this.mfaPolicy?.enrollmentOnly(user)) ?? false;
    return { accessToken: await this.sessions.accessToken(user.id, successor.tokenVersion, { enrollmentOnly }), refreshToken: derived.token };
  }

  /** A used token again: past the grace after its use, the family is revoked. Refused either way. */
  private async reused(token: RefreshToken, usedAt: Date, now: Date): Promise<never> {
    const revoke = now.getTime() - usedAt.getTime() >= this.sessions.policy.reuseGraceSeconds * 1000;
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
