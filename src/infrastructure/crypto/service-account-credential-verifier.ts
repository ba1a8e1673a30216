import { createHash, createPublicKey, type JsonWebKey, timingSafeEqual } from 'node:crypto';
import { createDecoder, createVerifier } from 'fast-jwt';
import { LRUCache } from 'lru-cache';
import type { Clock } from '../../application/ports/clock.port';
import type {
  AssertionAudience,
  AuthenticatedServiceAccount,
  ServiceAccountCredentials,
} from '../../application/ports/service-account-credentials.port';
import type { ServiceAccountCredentialStore } from '../../application/ports/service-account-repository.port';
import { algorithmOf } from '../../domain/service-accounts/public-jwk-set';
import { MAX_SECRETS, type ServiceAccountState } from '../../domain/service-accounts/service-account';

/** The algorithms a client assertion may be signed with: never `none`, never HS*. */
export const CLIENT_ASSERTION_ALGORITHMS = ['ES256', 'RS256', 'EdDSA'] as const;
type ClientAssertionAlgorithm = (typeof CLIENT_ASSERTION_ALGORITHMS)[number];
/** RFC 7523 leaves the lifetime to the server: an assertion expires at most this far ahead. */
export const MAX_ASSERTION_LIFETIME_SECONDS = 300;
/**
 * How far the client's clock may be from the service's (RFC 7519 §4.1.4-5, RFC 7523 §3: "allowable clock skew"), as
 * Nimbus and Spring Security allow by default: a client a moment ahead sets `nbf` (oauth4webapi sets it to its `iat`)
 * in the service's future. Its `jti` is remembered as long as the assertion is taken, the skew included.
 */
export const ASSERTION_CLOCK_SKEW_SECONDS = 60;
const MAX_CLIENT_ID = 64;
const MAX_SECRET = 512;
const MAX_ASSERTION = 8192;
const MAX_JTI = 256;
/** Compared in place of a secret that is not there, so every attempt compares MAX_SECRETS hashes. */
const DUMMY_HASH = createHash('sha256').update('no secret is stored here').digest();

const sha256 = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();
/** A secret's last use is written at most this often: a timestamp to the minute, not a write per token. */
export const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Verifies service accounts' credentials: a secret against the SHA-256s stored (every slot compared in
 * constant time, dummy hashes standing in for an unknown client or missing slots, so the time says
 * nothing of which failed), or an RFC 7523 client assertion against the account's registered keys, its
 * `jti` remembered in the database until it expires so no replica accepts it twice.
 */
export class ServiceAccountCredentialVerifier implements ServiceAccountCredentials {
  private readonly store: ServiceAccountCredentialStore;
  private readonly clock: Clock;
  private readonly decode = createDecoder({ complete: true });
  /** Assertion verifiers by key, client and audience (see verifierFor). */
  private readonly verifiers = new LRUCache<string, (token: string) => unknown>({ max: 1000 });

  constructor(deps: { serviceAccountCredentialStore: ServiceAccountCredentialStore; clock: Clock }) {
    this.store = deps.serviceAccountCredentialStore;
    this.clock = deps.clock;
  }

  async authenticateWithSecret(clientId: string, secret: string): Promise<AuthenticatedServiceAccount | null> {
    const presented = sha256(secret.length <= MAX_SECRET ? secret : '');
    const account = clientId.length > 0 && clientId.length <= MAX_CLIENT_ID ? await this.store.findByClientId(clientId) : null;
    const now = this.clock.now();
    const secrets = account?.secrets ?? [];
    let matched: (typeof secrets)[number] | undefined;
    // No early exit: as many comparisons for an unknown client as for a wrong secret.
    for (let slot = 0; slot < MAX_SECRETS; slot++) {
      const stored = secrets[slot];
      const hash = stored && /^[0-9a-f]{64}$/.test(stored.hash) ? Buffer.from(stored.hash, 'hex') : DUMMY_HASH;
      if (timingSafeEqual(hash, presented) && stored && matched === undefined) matched = stored;
    }
    if (!account || !matched || secret.length > MAX_SECRET || account.disabled) return null;
    if (matched.expiresAt && matched.expiresAt.getTime() <= now.getTime()) return null;
    const lastUsed = matched.lastUsedAt?.getTime();
    if (lastUsed === undefined || now.getTime() - lastUsed >= LAST_USED_RESOLUTION_MS) await this.store.markSecretUsed(matched.id, now);
    return authenticated(account, 'client_secret');
  }

  async authenticateWithAssertion(clientAssertion: string, audience: AssertionAudience, options: { rememberWithGrant?: boolean } = {}): Promise<AuthenticatedServiceAccount | null> {
    if (clientAssertion.length === 0 || clientAssertion.length > MAX_ASSERTION) return null;
    let header: { alg?: unknown; kid?: unknown };
    let claims: { iss?: unknown; sub?: unknown };
    try {
      ({ header, payload: claims } = this.decode(clientAssertion) as { header: typeof header; payload: typeof claims });
    } catch {
      return null;
    }
    const alg = header.alg;
    if (typeof alg !== 'string' || !(CLIENT_ASSERTION_ALGORITHMS as readonly string[]).includes(alg)) return null;
    if (typeof header.kid !== 'string') return null;
    const clientId = claims.iss;
    if (typeof clientId !== 'string' || clientId !== claims.sub || clientId.length === 0 || clientId.length > MAX_CLIENT_ID) return null;

    const account = await this.store.findByClientId(clientId);
    if (!account || account.disabled) return null;
    const jwk = account.keys.find((k) => k.kid === header.kid);
    if (!jwk || algorithmOf(jwk) !== alg) return null;

    const now = this.clock.now();
    let verified: { exp?: unknown; nbf?: unknown; jti?: unknown };
    try {
      verified = this.verifierFor(jwk, alg as ClientAssertionAlgorithm, clientId, audience)(clientAssertion) as typeof verified;
    } catch {
      return null;
    }
    // The cached verifier leaves time to us: the clock is the service's (a test's clock moves it), not fast-jwt's Date.now().
    const skewMs = ASSERTION_CLOCK_SKEW_SECONDS * 1000;
    if (typeof verified.exp !== 'number' || verified.exp * 1000 + skewMs <= now.getTime()) return null;
    if (verified.nbf !== undefined && (typeof verified.nbf !== 'number' || verified.nbf * 1000 - skewMs > now.getTime())) return null;
    const { exp, jti } = verified;
    if (typeof exp !== 'number' || exp * 1000 > now.getTime() + MAX_ASSERTION_LIFETIME_SECONDS * 1000 + skewMs) return null;
    if (typeof jti !== 'string' || jti.length === 0 || jti.length > MAX_JTI) return null;
    const remembered = createHash('sha256').update(`${clientId}\n${jti}`, 'utf8').digest('hex');
    // Taken until `exp` and the skew after it: remembered as long, so no replay finds it forgotten.
    const takenUntil = new Date(exp * 1000 + skewMs);
    if (options.rememberWithGrant) return { ...authenticated(account, 'private_key_jwt'), assertion: { key: remembered, expiresAt: takenUntil } };
    if (!(await this.store.rememberAssertion(remembered, takenUntil, now))) return null;
    return authenticated(account, 'private_key_jwt');
  }

  /**
   * One verifier per registered key, client and audience, made once: making one parses the key and
   * checks it fits the algorithm, which cost more than the signature check itself (bench/oauth.ts).
   * Keyed by the whole JWK, so a key replaced under the same `kid` is never verified with the old one.
   */
  private verifierFor(jwk: object, alg: ClientAssertionAlgorithm, clientId: string, audience: AssertionAudience): (token: string) => unknown {
    const id = JSON.stringify([jwk, alg, clientId, audience.tokenEndpointUrl, audience.issuer]);
    let verify = this.verifiers.get(id);
    if (verify === undefined) {
      verify = createVerifier({
        key: createPublicKey({ key: { ...jwk } as JsonWebKey, format: 'jwk' }).export({ type: 'spki', format: 'pem' }).toString(),
        algorithms: [alg],
        allowedIss: clientId,
        allowedSub: clientId,
        allowedAud: [audience.tokenEndpointUrl, audience.issuer],
        requiredClaims: ['iss', 'sub', 'aud', 'exp', 'jti'],
        ignoreExpiration: true,
        ignoreNotBefore: true,
        cache: false,
      });
      this.verifiers.set(id, verify);
    }
    return verify;
  }
}

function authenticated(account: ServiceAccountState, method: AuthenticatedServiceAccount['method']): AuthenticatedServiceAccount {
  return {
    id: account.id,
    clientId: account.clientId,
    roleId: account.roleId,
    method,
    ...(account.tokensValidFrom !== undefined ? { tokensValidFrom: account.tokensValidFrom } : {}),
  };
}
