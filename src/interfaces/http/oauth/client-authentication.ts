import { normalizeIP } from '@fastify/rate-limit';
import type { FastifyRequest } from 'fastify';
import type { AuditRecorder } from '../../../application/audit/audit-recorder';
import type { Clock } from '../../../application/ports/clock.port';
import type { RateLimitCounter } from '../../../application/ports/rate-limit-counter.port';
import type {
  AssertionAudience,
  AuthenticatedServiceAccount,
  ServiceAccountCredentials,
} from '../../../application/ports/service-account-credentials.port';
import { ANONYMOUS, AuditActions } from '../../../domain/audit/audit-entry';
import { HttpProblemError } from '../problem';
import { OAuthError } from './oauth-error';

/** RFC 7521 §4.2's client assertion type for a JWT (RFC 7523 §2.2). */
export const JWT_BEARER_ASSERTION = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** The client authentication methods (RFC 7591 names) the revocation and introspection endpoints take. */
export const CLIENT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'private_key_jwt'] as const;

/** What a client id may be: visible ASCII, at most 64 characters ('' for an assertion whose issuer is unreadable). */
const CLIENT_ID = /^[\x21-\x7e]{0,64}$/;
/** The shape of the client ids the service issues (ids: UUIDs). */
const ISSUED_CLIENT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Failed client authentications are counted in windows of this length. */
const FAILURE_WINDOW_MS = 60_000;

/** What the request presents to authenticate its client: nothing (a public client), a secret, or an assertion. */
export type PresentedClient =
  | { method: 'none' }
  | { method: 'client_secret_basic' | 'client_secret_post'; clientId: string; secret: string }
  | { method: 'private_key_jwt'; clientId: string; assertion: string };

export interface ClientAuthenticationDeps {
  serviceAccountCredentials: ServiceAccountCredentials;
  /** Where a client assertion may be addressed (the token endpoint's URL or the issuer), as at the token endpoint. */
  assertionAudience: AssertionAudience;
  /** The database-backed counter of the rate limits: every replica sees the same failures. */
  rateLimitCounter: RateLimitCounter;
  clock: Clock;
  /** Failed client authentications a minute, per client address, before the next is refused unchecked (0: off). */
  failuresPerMinute: number;
  /** Writes an entry for every refused client authentication (#23): the method tried, never what was presented. */
  auditRecorder?: AuditRecorder;
}

/** The answer to failed client authentication (RFC 6749 §5.2): 401 with the scheme the client may use. */
export function invalidClient(description = 'Client authentication failed'): OAuthError {
  return new OAuthError('invalid_client', description, 401, { 'www-authenticate': 'Basic realm="access-control", charset="UTF-8"' });
}

/**
 * The client credentials a request carries: HTTP Basic (RFC 6749 §2.3.1, id and secret form-urlencoded
 * before base64), `client_id` and `client_secret` in the form, or a `client_assertion` (RFC 7523). More than
 * one method, or a form `client_id` that is not Basic's, is `invalid_request` (§2.3: a client MUST NOT use more
 * than one); another Authorization scheme (a bearer token is no client's credentials), a malformed Basic header,
 * an assertion of another type or a secret without its `client_id` is `invalid_client` (§5.2: "unsupported
 * authentication method"). A `client_id` alone is a public client's, and authenticates nothing.
 *
 * `otherSchemes: 'ignore'`: an Authorization header of another scheme than Basic is no credentials at all, not a refused
 * method (the refresh grant: some HTTP clients add a user's bearer token to every request, and the refresh token alone
 * is that grant's credential).
 */
export function presentedClient(
  parameters: Readonly<Record<string, string>>,
  request: FastifyRequest,
  options: { otherSchemes?: 'refuse' | 'ignore' } = {},
): PresentedClient {
  const given = request.headers.authorization;
  const header = options.otherSchemes === 'ignore' && given !== undefined && !/^basic /i.test(given) ? undefined : given;
  const presented: PresentedClient[] = [];
  if (header !== undefined) {
    const match = /^Basic +([A-Za-z0-9+/]+={0,2})\s*$/i.exec(header);
    if (!match) throw invalidClient('The Authorization header must be HTTP Basic client credentials');
    const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw invalidClient('The Authorization header must be HTTP Basic client credentials');
    const clientId = formDecode(decoded.slice(0, colon));
    if (parameters.client_id !== undefined && parameters.client_id !== clientId) {
      throw new OAuthError('invalid_request', 'client_id differs from the authenticated client');
    }
    presented.push({ method: 'client_secret_basic', clientId, secret: formDecode(decoded.slice(colon + 1)) });
  }
  if (parameters.client_secret !== undefined) {
    // Basic and a form secret are two methods (RFC 6749 §2.3), whether or not the form names the client too.
    if (header !== undefined) throw new OAuthError('invalid_request', 'Use one client authentication method, not several');
    if (!parameters.client_id) throw invalidClient('client_secret needs its client_id');
    presented.push({ method: 'client_secret_post', clientId: parameters.client_id, secret: parameters.client_secret });
  }
  if (parameters.client_assertion !== undefined || parameters.client_assertion_type !== undefined) {
    if (parameters.client_assertion_type !== JWT_BEARER_ASSERTION || !parameters.client_assertion) {
      throw invalidClient(`client_assertion_type must be ${JWT_BEARER_ASSERTION}, with a client_assertion`);
    }
    presented.push({ method: 'private_key_jwt', clientId: parameters.client_id ?? issuerOf(parameters.client_assertion), assertion: parameters.client_assertion });
  }
  if (presented.length > 1) throw new OAuthError('invalid_request', 'Use one client authentication method, not several');
  return presented[0] ?? { method: 'none' };
}

/**
 * The service account the presented credentials authenticate; invalid_client (401) for anything else.
 * Failures are counted per client address in the same windows as the token endpoint's (one budget for
 * every endpoint that authenticates clients); once it is spent, a request from there is refused (429
 * `invalid_request`, Retry-After) before its credentials are checked.
 *
 * `rememberWithGrant`: an assertion's `jti` is left for the token grant to remember with its audit entry
 * (the answer's `assertion`); a replay found then is refused through `refuseClient`, as here.
 */
export async function authenticateClient(
  deps: ClientAuthenticationDeps,
  presented: PresentedClient,
  request: FastifyRequest,
  options: { rememberWithGrant?: boolean } = {},
): Promise<AuthenticatedServiceAccount> {
  if (presented.method === 'none') throw invalidClient('Client authentication is required');
  // Client ids are ASCII (UUIDs): anything else names no client, and is never sent to an ASCII column.
  if (!CLIENT_ID.test(presented.clientId)) throw invalidClient();
  const keys = failureKeys(request);
  if (deps.failuresPerMinute > 0) await refuseWhileThrottled(deps, keys, presented.clientId);
  const account =
    presented.method === 'private_key_jwt'
      ? await deps.serviceAccountCredentials.authenticateWithAssertion(presented.assertion, deps.assertionAudience, options)
      : await deps.serviceAccountCredentials.authenticateWithSecret(presented.clientId, presented.secret);
  if (!account || (presented.clientId !== '' && account.clientId !== presented.clientId)) return refuseClient(deps, presented, request);
  return account;
}

/**
 * Refuses the presented client: the failure counted per address, its audit entry written,
 * and invalid_client thrown. The same entry for an unknown client, a wrong secret, a bad or replayed
 * assertion: the caller's time tells nothing either.
 */
export async function refuseClient(deps: ClientAuthenticationDeps, presented: Exclude<PresentedClient, { method: 'none' }>, request: FastifyRequest): Promise<never> {
  if (deps.failuresPerMinute > 0) {
    const now = deps.clock.now();
    await Promise.all(failureKeys(request).map((key) => deps.rateLimitCounter.hit(key, now, FAILURE_WINDOW_MS)));
  }
  await recordFailure(deps, presented.clientId, presented.method);
  throw invalidClient();
}

/**
 * The windows a failure counts in: the caller's address only. Not the client id: a secret of 256 random bits or a
 * signed assertion cannot be guessed at any rate a window allows, and a client id is no secret (every token of the
 * client carries it), so a window per client id would only let whoever knows one shut that client out.
 */
function failureKeys(request: FastifyRequest): string[] {
  return [`client-auth-failures:address:${normalizeIP(request.ip)}`];
}

/**
 * The audit entry of a refused client authentication: who it claimed to be, and how. A client id is no secret, but
 * what was presented as one may be anything, a secret typed in the wrong field included (id and secret swapped): it is
 * kept only when it has the shape of the ids the service issues (UUIDs), which no secret has.
 */
async function recordFailure(deps: ClientAuthenticationDeps, clientId: string, code: string): Promise<void> {
  await deps.auditRecorder?.record({
    action: AuditActions.clientAuthenticationFailed,
    outcome: 'failure',
    code,
    actor: ANONYMOUS,
    target: { type: 'service_account', id: null, snapshot: ISSUED_CLIENT_ID.test(clientId) ? clientId : null },
  });
}

/**
 * Refuses (429) while a window of the caller's is spent. The refusals are counted apart, per key, in windows of their
 * own, and only the first of each is audited (`throttled`): a refusal costs one counted hit, not an entry and its event
 * each, so a caller refused as fast as it can send (introspection has no per-address limit of its own) adds one entry
 * a minute to the trail, not one a request, however many failures spent the window before.
 */
async function refuseWhileThrottled(deps: ClientAuthenticationDeps, keys: readonly string[], clientId: string): Promise<void> {
  const now = deps.clock.now();
  const windows = await Promise.all(keys.map((key) => deps.rateLimitCounter.peek(key, now)));
  const spent = windows.filter((window) => window !== null && window.hits >= deps.failuresPerMinute);
  if (spent.length === 0) return;
  const refusals = await Promise.all(keys.map((key) => deps.rateLimitCounter.hit(`${key}:refused`, now, FAILURE_WINDOW_MS)));
  if (refusals.some((window) => window.hits === 1)) await recordFailure(deps, clientId, 'throttled');
  const seconds = Math.max(1, Math.ceil(Math.max(...spent.map((window) => window!.endsAt.getTime() - now.getTime())) / 1000));
  throw new HttpProblemError('TOO_MANY_REQUESTS', `Too many failed client authentications; retry after ${seconds} seconds`, {
    'retry-after': String(seconds),
  });
}

function formDecode(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    throw invalidClient('The Authorization header must be HTTP Basic client credentials');
  }
}

/** An assertion's `iss` as it claims, unverified (only a key to count failures by); '' when unreadable. */
function issuerOf(assertion: string): string {
  try {
    const payload: unknown = JSON.parse(Buffer.from(assertion.split('.')[1] ?? '', 'base64url').toString('utf8'));
    const iss = (payload as { iss?: unknown } | null)?.iss;
    return typeof iss === 'string' && iss.length <= 64 ? iss : '';
  } catch {
    return '';
  }
}
