import { randomUUID } from 'node:crypto';
import { createSigner } from 'fast-jwt';
import type { IssuedToken, TokenIssuer } from '../../application/ports/token-issuer.port';
import type { Clock } from '../../application/ports/clock.port';
import type { SigningKey } from './signing-keys';

export interface TokenSettings {
  issuer: string;
  audience: string;
  ttlSeconds: number;
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

  async issue(subject: string, tokenVersion: number): Promise<IssuedToken> {
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
    });
    return { token, expiresAt: new Date(exp * 1000) };
  }
}
