import { randomUUID } from 'node:crypto';
import { createSigner } from 'fast-jwt';
import type { IssuedToken, ServiceTokenRequest, TokenIssuer } from '../../application/ports/token-issuer.port';
import type { Clock } from '../../application/ports/clock.port';
import type { SigningKey } from './signing-keys';

export interface TokenSettings {
  issuer: string;
  audience: string;
  ttlSeconds: number;
  /** A service account's token lifetime (SERVICE_TOKEN_TTL); absent: ttlSeconds. */
  serviceTokenTtlSeconds?: number;
}

/**
 * Access tokens signed with the configured key's algorithm (ES256, RS256 or EdDSA) and its `kid`, carrying only identity (`sub`) and the user's token version (`ver`, bumped by
 * sign-out): permissions are read fresh on each request.
 */
export class JwtTokenIssuer implements TokenIssuer {
  private readonly sign: (payload: Record<string, unknown>) => string;

  constructor(
    key: SigningKey,
    private readonly settings: TokenSettings,
    private readonly clock: Clock,
  ) {
    this.sign = createSigner({ key: key.privateKeyPem, algorithm: key.alg, kid: key.kid });
  }

  async issue(subject: string, tokenVersion: number, options: { enrollmentOnly?: boolean } = {}): Promise<IssuedToken> {
    const iat = Math.floor(this.clock.now().getTime() / 1000);
    const exp = iat + Math.round(this.settings.ttlSeconds);
    const token = this.sign({
      iss: this.settings.issuer,
      aud: this.settings.audience,
      sub: subject,
      iat,
      exp,
      jti: randomUUID(),
      ver: tokenVersion,
      ...(options.enrollmentOnly ? { mfa_enrollment: true } : {}),
    });
    return { token, issuedAt: new Date(iat * 1000), expiresAt: new Date(exp * 1000) };
  }

  /**
   * Signed by the same key, for the same issuer, as a user's, and for the same audience unless another was asked
   * for (RFC 8707): verifiers need nothing new. No `ver`: whether the account still holds its role (or exists, or is
   * enabled) is read at each request.
   */
  async issueServiceToken({ subject, clientId, scope, audience }: ServiceTokenRequest): Promise<IssuedToken> {
    const iat = Math.floor(this.clock.now().getTime() / 1000);
    const exp = iat + Math.round(this.settings.serviceTokenTtlSeconds ?? this.settings.ttlSeconds);
    const token = this.sign({
      iss: this.settings.issuer,
      aud: audience ?? this.settings.audience,
      sub: subject,
      client_id: clientId,
      scope: scope.join(' '),
      iat,
      exp,
      jti: randomUUID(),
    });
    return { token, issuedAt: new Date(iat * 1000), expiresAt: new Date(exp * 1000) };
  }
}
