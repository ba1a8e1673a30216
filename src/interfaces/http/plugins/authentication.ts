import fastifyJwt from '@fastify/jwt';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Actor } from '../../../application/auth/actor';
import type { TokenSubject } from '../../../application/auth/authenticate-actor.use-case';
import { ValidationError } from '../../../domain/shared/domain-error';
import type { VerificationKey } from '../../../infrastructure/crypto/signing-keys';
import { requestContext } from '../../../infrastructure/observability/request-context';
import { HttpProblemError, InvalidBearerRequestError, invalidToken, unauthenticated } from '../problem';

declare module 'fastify' {
  interface FastifyRequest {
    actor?: Actor;
  }
  interface FastifyInstance {
    authenticate(request: FastifyRequest): Promise<Actor>;
  }
  interface FastifyContextConfig {
    /** A /v1 route that needs no bearer token. */
    public?: boolean;
    /** A route an enrollment-only token (MFA_REQUIRED_PERMISSIONS, #24) may call: enrolling a factor, reading /v1/me. */
    mfaEnrollment?: boolean;
  }
}

export interface AuthenticationOptions {
  /** The current signing key's public key first, then retired ones still accepted until their tokens expire. */
  verificationKeys: readonly VerificationKey[];
  issuer: string;
  audience: string;
  resolveActor(token: TokenSubject): Promise<Actor | null>;
}

const BEARER = /^Bearer +([A-Za-z0-9\-_]+\.[A-Za-z0-9\-_]+\.[A-Za-z0-9\-_]*)\s*$/i;
/**
 * The Bearer scheme with something after it: a token was presented, though maybe not one of the form above
 * (`invalid_token`). `Bearer` alone presents none, and is answered as no authentication (RFC 6750 §3.1: no error code).
 */
const BEARER_SCHEME = /^Bearer\s+\S/i;

/**
 * The only header parameters a token of ours carries. Anything else (`jku`, `jwk`, `x5u`, `x5c`,
 * `crit`, …) is refused: we never fetch or trust a key named by the token itself.
 */
const ALLOWED_HEADER = new Set(['alg', 'typ', 'kid']);

type Verify = (request: FastifyRequest) => Promise<Record<string, unknown>>;

/**
 * Bearer authentication: the token must be a JWT signed by the key its `kid` names (the current key
 * or a retired one) with that key's own algorithm (ES256, RS256 or EdDSA; never `none` or HS*), for our issuer and audience, unexpired, with every registered
 * claim present; then its subject must still be a joined user whose token version is the token's, or (a
 * service token, marked by `client_id`) an enabled service account with that client id.
 * Every failure, whatever its cause, is the same 401; only its challenge says whether a bearer token came at all
 * (RFC 6750 §3.1: `error="invalid_token"` to a token refused, no error code without one).
 */
async function authentication(app: FastifyInstance, options: AuthenticationOptions): Promise<void> {
  // Node keeps the first of two Authorization headers and drops the other: a proxy that read the second would act
  // for another caller than this service does. A singleton field given twice is a malformed request (RFC 9110 §5.3).
  // A bearer route also refuses a token in the query beside the header (RFC 6750 §3.1: "more than one method"; the
  // query is no method of ours, §2.3), and both 400s challenge with `error="invalid_request"`. OAuth's endpoints take
  // client credentials, not bearer tokens: their 400 is `invalid_request` in their own JSON, without that challenge.
  app.addHook('onRequest', async (request) => {
    const bearerRoute = request.routeOptions.config?.oauth !== true;
    if (fieldCount(request.raw.rawHeaders, 'authorization') > 1) {
      throw bearerRoute
        ? new InvalidBearerRequestError('authorization', 'is given more than once')
        : new ValidationError([{ field: 'authorization', message: 'is given more than once' }]);
    }
    const query = request.query as Record<string, unknown> | undefined;
    if (bearerRoute && request.headers.authorization !== undefined && query && Object.hasOwn(query, 'access_token')) {
      throw new InvalidBearerRequestError('access_token', 'is a second way of sending a token beside Authorization: send it in the Authorization header only');
    }
  });
  // One @fastify/jwt namespace per key, each with its own verifier pinned to its key's algorithm: the
  // token's `kid` picks the namespace, so a token is only ever checked against the key it names, and
  // an EdDSA key never verifies an ES256 token (nor an RSA key an HS256 one made with its public key).
  const verifiers = new Map<string, Verify>();
  for (const [index, key] of options.verificationKeys.entries()) {
    const decorator = `accessTokenVerify${index}`;
    await app.register(fastifyJwt, {
      namespace: `key${index}`,
      jwtVerify: decorator,
      secret: { public: key.publicKeyPem },
      verify: {
        algorithms: [key.alg],
        allowedIss: options.issuer,
        allowedAud: options.audience,
        // `ver` (a user's) or `client_id` (a service account's): required by kind below.
        requiredClaims: ['iss', 'aud', 'sub', 'iat', 'exp'],
        // No fast-jwt cache: a verified token is remembered below (VerifiedTokens), once.
      },
    });
    verifiers.set(key.kid, (request) =>
      (request as unknown as Record<string, () => Promise<Record<string, unknown>>>)[decorator](),
    );
  }

  // Tokens whose signature and claims were verified, by their exact text, until they expire: a
  // client sends the same token many times, and verifying it (decoding, hashing and checking the
  // signature) cost more than the rest of the authentication. Whether its user is still signed in is not
  // decided here: resolveActor answers it on every request, from the revocation signal's snapshot while that is
  // current and from the database otherwise (docs/DECISIONS.md, "The revocation signal").
  const verified = new VerifiedTokens(VERIFIED_TOKENS_MAX);

  app.decorate('authenticate', async (request: FastifyRequest): Promise<Actor> => {
    if (request.actor) return request.actor;
    const authorization = request.headers.authorization ?? '';
    const match = BEARER.exec(authorization);
    if (!match) throw BEARER_SCHEME.test(authorization) ? invalidToken() : unauthenticated();
    const token = match[1]!;
    let subject = verified.get(token, Date.now());
    if (!subject) {
      try {
        const verify = verifiers.get(kidOf(token));
        if (!verify) throw new Error('unknown key');
        const claims = await verify(request);
        if (typeof claims.sub !== 'string' || claims.sub.length === 0) throw new Error('no subject');
        if (typeof claims.exp !== 'number' || !Number.isFinite(claims.exp)) throw new Error('bad expiry');
        subject = tokenSubject(claims.sub, claims);
        verified.set(token, subject, claims.exp * 1000);
      } catch {
        throw invalidToken();
      }
    }
    const actor = await options.resolveActor(subject);
    if (!actor) throw invalidToken();
    if (subject.kind !== 'service' && subject.enrollmentOnly) {
      // Checked here, before any handler: a route not marked for enrollment answers 403 whatever it needs.
      if (!request.routeOptions.config?.mfaEnrollment) {
        throw new HttpProblemError('MFA_ENROLLMENT_REQUIRED', 'Your role requires a second factor: enroll one at POST /v1/me/mfa/totp, then sign in again');
      }
      request.actor = { ...actor, permissions: [] };
      return request.actor;
    }
    request.actor = actor;
    const context = requestContext.getStore();
    if (context) context.party = actor.clientId === undefined ? `user:${actor.userId}` : `client:${actor.clientId}`;
    return actor;
  });
}

/**
 * The kind of token by its claims, each kind's own claims required and the other's refused: a user's
 * carries `ver` and no `client_id`; a service account's (client credentials) `client_id` and `scope` and no
 * `ver`. Neither is ever taken for the other, and each is resolved in its own table.
 */
function tokenSubject(sub: string, claims: Record<string, unknown>): TokenSubject {
  if (claims.client_id === undefined) {
    if (claims.scope !== undefined) throw new Error('a scope without a client');
    if (typeof claims.ver !== 'number' || !Number.isSafeInteger(claims.ver) || claims.ver < 0) throw new Error('bad version');
    if (claims.mfa_enrollment !== undefined && claims.mfa_enrollment !== true) throw new Error('bad mfa_enrollment');
    return { subject: sub, tokenVersion: claims.ver, ...(claims.mfa_enrollment === true ? { enrollmentOnly: true } : {}) };
  }
  if (claims.ver !== undefined) throw new Error('both kinds');
  if (typeof claims.client_id !== 'string' || claims.client_id.length === 0) throw new Error('bad client');
  if (typeof claims.scope !== 'string' || !/^([^ ]+( [^ ]+)*)?$/.test(claims.scope)) throw new Error('bad scope');
  if (typeof claims.iat !== 'number' || !Number.isFinite(claims.iat)) throw new Error('bad issue time');
  return { kind: 'service', subject: sub, clientId: claims.client_id, scope: claims.scope === '' ? [] : claims.scope.split(' '), issuedAt: claims.iat };
}

/** How many times the header `name` (lower case) came, in Node's raw name/value list. */
export function fieldCount(rawHeaders: readonly string[], name: string): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.length === name.length && rawHeaders[i]!.toLowerCase() === name) count++;
  return count;
}

const VERIFIED_TOKENS_MAX = 10_000;

/** Verified tokens with their expiry, at most `max` of them (the oldest entry goes first). */
class VerifiedTokens {
  private readonly entries = new Map<string, { subject: TokenSubject; expiresAtMs: number }>();

  constructor(private readonly max: number) {}

  get(token: string, nowMs: number): TokenSubject | undefined {
    const entry = this.entries.get(token);
    if (!entry) return undefined;
    if (nowMs < entry.expiresAtMs) return entry.subject;
    this.entries.delete(token); // expired: verified again, which refuses it
    return undefined;
  }

  set(token: string, subject: TokenSubject, expiresAtMs: number): void {
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(token, { subject, expiresAtMs });
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

export default fp(authentication, { name: 'authentication' });
