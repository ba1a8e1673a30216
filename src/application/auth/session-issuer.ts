import type { Clock } from '../ports/clock.port';
import type { IdGenerator } from '../ports/id-generator.port';
import type { RefreshToken, RefreshTokenStore } from '../ports/refresh-token-store.port';
import type { SecretTokens } from '../ports/secret-tokens.port';
import type { TokenIssuer } from '../ports/token-issuer.port';
import { familyToken } from './refresh-token-format';

/** How much longer than the reuse grace a used token is kept: clocks of replicas may disagree by this much. */
const USED_TOKEN_CLOCK_MARGIN_SECONDS = 60;

/** Lifetimes of refresh tokens (REFRESH_TOKEN_*), in seconds. */
export interface RefreshTokenPolicy {
  /** From sign-in: a family ends then, however often it was used. */
  absoluteTtlSeconds: number;
  /** Unused this long, a token is dead. */
  idleTtlSeconds: number;
  /**
   * A used token presented again within this long after its use is refused without revoking its family
   * (a client's own double submit); later, the family is revoked. 0: every reuse revokes (RFC 9700 as written).
   */
  reuseGraceSeconds: number;
}

/** What a session hands the client: an access token and the refresh token that renews it. */
export interface SessionTokens {
  accessToken: string;
  refreshToken: string;
}

/** Issues the tokens of a session: an access token, and a refresh token of a new family or the next of one. */
export class SessionIssuer {
  private readonly tokens: TokenIssuer;
  private readonly store: RefreshTokenStore;
  private readonly secrets: SecretTokens;
  private readonly ids: IdGenerator;
  private readonly clock: Clock;
  readonly policy: RefreshTokenPolicy;

  constructor(deps: {
    tokenIssuer: TokenIssuer;
    refreshTokenStore: RefreshTokenStore;
    secretTokens: SecretTokens;
    idGenerator: IdGenerator;
    clock: Clock;
    refreshTokenPolicy: RefreshTokenPolicy;
  }) {
    this.tokens = deps.tokenIssuer;
    this.store = deps.refreshTokenStore;
    this.secrets = deps.secretTokens;
    this.ids = deps.idGenerator;
    this.clock = deps.clock;
    this.policy = deps.refreshTokenPolicy;
  }

  /** A new session (sign-in, a password change): a new refresh token family tied to `tokenVersion`. */
  async start(userId: string, tokenVersion: number, options: { enrollmentOnly?: boolean } = {}): Promise<SessionTokens> {
    const now = this.clock.now();
    const familyId = this.ids.next();
    const { token, hash } = this.newToken(familyId);
    const expiresAt = new Date(now.getTime() + this.policy.absoluteTtlSeconds * 1000);
    await this.store.add({
      id: this.ids.next(),
      familyId,
      userId,
      tokenHash: hash,
      tokenVersion,
      createdAt: now,
      expiresAt,
      idleExpiresAt: this.idleEnd(now, expiresAt),
      usedAt: null,
      revokedAt: null,
      familyInToken: true,
    });
    return { accessToken: (await this.tokens.issue(userId, tokenVersion, options)).token, refreshToken: token };
  }

  /** The successor of `used` in its family, not stored yet (`RefreshTokenStore.rotate` stores it), and its token. */
  successor(used: RefreshToken, now: Date): { token: string; record: RefreshToken } {
    const { token, hash } = this.newToken(used.familyId);
    return {
      token,
      record: {
        ...used,
        id: this.ids.next(),
        tokenHash: hash,
        createdAt: now,
        idleExpiresAt: this.idleEnd(now, used.expiresAt),
        usedAt: null,
        revokedAt: null,
        familyInToken: true,
      },
    };
  }

  /**
   * Before this, a family's used tokens go (RefreshTokenStore.rotate) when the family's next token is stored at `now`:
   * past the reuse grace, within which a used token must still be found to be forgiven, and a minute more for replicas
   * whose clocks disagree. Later, a reuse of one of them is caught by the family its token names.
   */
  forgetUsedBefore(now: Date): Date {
    return new Date(now.getTime() - (this.policy.reuseGraceSeconds + USED_TOKEN_CLOCK_MARGIN_SECONDS) * 1000);
  }

  /** A new token of the family, naming it, and the hash that is stored. */
  private newToken(familyId: string): { token: string; hash: string } {
    const token = familyToken(familyId, this.secrets.generate().token);
    return { token, hash: this.secrets.hash(token) };
  }

  async accessToken(userId: string, tokenVersion: number, options: { enrollmentOnly?: boolean } = {}): Promise<string> {
    return (await this.tokens.issue(userId, tokenVersion, options)).token;
  }

  private idleEnd(now: Date, expiresAt: Date): Date {
    return new Date(Math.min(now.getTime() + this.policy.idleTtlSeconds * 1000, expiresAt.getTime()));
  }
}
