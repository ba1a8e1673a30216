import { createVerifier } from 'fast-jwt';
import type { AccessTokenVerifier, VerifiedAccessToken } from '../../application/ports/access-token-verifier.port';
import type { VerificationKey } from './signing-keys';

/** The only header parameters a token of ours carries: a `jku`, `jwk`, `x5u`, `x5c` or `crit` is refused. */
const ALLOWED_HEADER = new Set(['alg', 'typ', 'kid']);
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
/** RFC 6749 §3.3: scope tokens separated by single spaces. */
const SCOPE = /^([^ ]+( [^ ]+)*)?$/;

/**
 * Verifies access tokens with the rules of the bearer authentication (src/interfaces/http/plugins/authentication.ts,
 * on @fastify/jwt, which is fast-jwt): the `kid` picks one verification key, verified only with that key's own
 * algorithm (never `none` nor HS*), for our issuer and audience, unexpired, with `iss`, `aud`, `sub`, `iat`, `exp`,
 * and a user's `ver` or a service's `client_id` and `scope`. For introspection and revocation, which are given a token as a form field rather than a bearer header.
 * A service's token may also be for one of RESOURCE_SERVERS (RFC 8707): the resource server it was issued for asks
 * about it here, and reads its `aud`. A user's token is for this service's audience alone, as it is issued.
 */
export class JwtAccessTokenVerifier implements AccessTokenVerifier {
  private readonly verifiers: Map<string, (token: string) => Record<string, unknown>>;

  private readonly audience: string;

  constructor(keys: readonly VerificationKey[], settings: { issuer: string; audience: string; resources?: readonly string[] }) {
    this.audience = settings.audience;
    this.verifiers = new Map(
      keys.map((key) => [
        key.kid,
        createVerifier({
          key: key.publicKeyPem,
          algorithms: [key.alg],
          allowedIss: settings.issuer,
          allowedAud: [settings.audience, ...(settings.resources ?? [])],
          requiredClaims: ['iss', 'aud', 'sub', 'iat', 'exp'],
        }) as (token: string) => Record<string, unknown>,
      ]),
    );
  }

  async verify(token: string): Promise<VerifiedAccessToken | null> {
    if (!JWT_SHAPE.test(token)) return null;
    try {
      const verify = this.verifiers.get(kidOf(token));
      if (!verify) return null;
      const claims = verify(token);
      const { sub, iss, aud, iat, exp } = claims;
      if (typeof sub !== 'string' || sub.length === 0) return null;
      if (typeof iat !== 'number' || typeof exp !== 'number' || !Number.isFinite(iat) || !Number.isFinite(exp)) return null;
      if (typeof iss !== 'string' || typeof aud !== 'string') return null;
      const common = { subject: sub, issuer: iss, audience: aud, issuedAt: iat, expiresAt: exp };
      // Each kind's own claims, the other's refused (as the bearer authentication reads them).
      const { ver, client_id: clientId, scope, mfa_enrollment: enrollment } = claims;
      if (clientId === undefined) {
        if (aud !== this.audience) return null;
        if (scope !== undefined || typeof ver !== 'number' || !Number.isSafeInteger(ver) || ver < 0) return null;
        if (enrollment !== undefined && enrollment !== true) return null;
        return { ...common, kind: 'user', tokenVersion: ver, ...(enrollment === true ? { enrollmentOnly: true } : {}) };
      }
      if (ver !== undefined || typeof clientId !== 'string' || clientId.length === 0) return null;
      if (typeof scope !== 'string' || !SCOPE.test(scope)) return null;
      return { ...common, kind: 'service', clientId, scope: scope === '' ? [] : scope.split(' ') };
    } catch {
      return null;
    }
  }
}

/** The `kid` of a token whose header holds nothing but alg, typ and kid; '' otherwise. */
function kidOf(token: string): string {
  const header: unknown = JSON.parse(Buffer.from(token.slice(0, token.indexOf('.')), 'base64url').toString('utf8'));
  if (typeof header !== 'object' || header === null || Array.isArray(header)) return '';
  if (Object.keys(header).some((name) => !ALLOWED_HEADER.has(name))) return '';
  const kid = (header as { kid?: unknown }).kid;
  return typeof kid === 'string' ? kid : '';
}
