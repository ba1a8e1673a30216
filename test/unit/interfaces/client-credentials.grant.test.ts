import { auditRecorderFor } from '../../support/fakes/audit-recorder';
import type { FastifyRequest } from 'fastify';
import type { RateLimitCounter, RateLimitWindow } from '../../../src/application/ports/rate-limit-counter.port';
import type {
  AssertionAudience,
  AuthenticatedServiceAccount,
  ServiceAccountCredentials,
} from '../../../src/application/ports/service-account-credentials.port';
import { IssueServiceTokenUseCase } from '../../../src/application/service-accounts/issue-service-token.use-case';
import { TokenAudiences } from '../../../src/application/service-accounts/token-audiences';
import { InvalidScopeError } from '../../../src/application/service-accounts/service-token.errors';
import { toProblem } from '../../../src/interfaces/http/error-handler';
import { JWT_BEARER_ASSERTION } from '../../../src/interfaces/http/oauth/client-authentication';
import { clientCredentialsGrant } from '../../../src/interfaces/http/oauth/client-credentials.grant';
import { OAuthError, toOAuthError } from '../../../src/interfaces/http/oauth/oauth-error';
import { FakeTokenIssuer } from '../../support/fakes/fake-token-issuer';
import { FixedClock } from '../../support/fakes/fixed-clock';
import { InMemoryRoleRepository } from '../../support/fakes/in-memory-role.repository';
import { InMemoryServiceAccountRepository } from '../../support/fakes/in-memory-service-account.repository';
import { RoleMother } from '../../support/mothers/role.mother';

const READER = RoleMother.withPermissions('reader', ['users:read', 'roles:read', 'users:invite']);
const ACCOUNT: AuthenticatedServiceAccount = { id: 'sa-1', clientId: 'reports', roleId: READER.id, method: 'client_secret' };
const AUDIENCE: AssertionAudience = { tokenEndpointUrl: 'https://id.example.com/oauth/token', issuer: 'https://id.example.com' };

/** Accepts `reports`/`right` and the assertion `good.assertion.jwt`; records each call. */
class StubCredentials implements ServiceAccountCredentials {
  readonly calls: string[] = [];
  async authenticateWithSecret(clientId: string, secret: string) {
    this.calls.push(`secret ${clientId}`);
    return clientId === 'reports' && secret === 'right' ? ACCOUNT : null;
  }
  /** A good assertion's key is left to the grant to remember (`rememberWithGrant`), as the verifier leaves it. */
  async authenticateWithAssertion(assertion: string, audience: AssertionAudience, options: { rememberWithGrant?: boolean } = {}) {
    this.calls.push('assertion');
    expect(audience).toEqual(AUDIENCE);
    if (!assertion.startsWith('good.assertion')) return null;
    return { ...ACCOUNT, method: 'private_key_jwt' as const, ...(options.rememberWithGrant ? { assertion: { key: `key of ${assertion}`, expiresAt: new Date('2026-11-25T03:02:00Z') } } : {}) };
  }
}

class MemoryCounter implements RateLimitCounter {
  readonly windows = new Map<string, RateLimitWindow>();
  async hit(key: string, now: Date, windowMs: number): Promise<RateLimitWindow> {
    const live = this.windows.get(key);
    const window = live && live.endsAt > now ? { hits: live.hits + 1, endsAt: live.endsAt } : { hits: 1, endsAt: new Date(now.getTime() + windowMs) };
    this.windows.set(key, window);
    return window;
  }
  async peek(key: string, now: Date): Promise<RateLimitWindow | null> {
    const live = this.windows.get(key);
    return live && live.endsAt > now ? live : null;
  }
}

/** `audited`: refused client authentications are written to `auditTrail` too. */
function setup(failuresPerMinute = 3, { audited = false } = {}) {
  const clock = new FixedClock(new Date('2026-11-25T03:00:00Z'));
  const tokens = new FakeTokenIssuer(clock, 600);
  const credentials = new StubCredentials();
  const counter = new MemoryCounter();
  const { auditRecorder, auditTrail } = auditRecorderFor({ clock });
  const store = new InMemoryServiceAccountRepository(auditTrail);
  const grant = clientCredentialsGrant({
    serviceAccountCredentials: credentials,
    issueServiceToken: new IssueServiceTokenUseCase({ roleRepository: new InMemoryRoleRepository([READER]), tokenIssuer: tokens, clock, auditRecorder, serviceAccountCredentialStore: store, tokenAudiences: new TokenAudiences({ issuer: 'https://ac.example.com', audience: 'access-control', resources: [] }) }),
    ...(audited ? { auditRecorder } : {}),
    rateLimitCounter: counter,
    clock,
    assertionAudience: AUDIENCE,
    failuresPerMinute,
  });
  const request = (authorization?: string, ip = '192.0.2.1') => ({ headers: authorization ? { authorization } : {}, ip }) as unknown as FastifyRequest;
  const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
  const refusal = async (promise: Promise<unknown>) => {
    const error = await promise.then(
      () => null,
      (e: unknown) => e,
    );
    const { problem, headers } = toProblem(error);
    return toOAuthError(error, { code: problem.code, status: problem.status, headers });
  };
  return { grant, tokens, credentials, counter, clock, request, basic, refusal, auditTrail };
}

const CC = { grant_type: 'client_credentials' };

describe('the client credentials grant (#21)', () => {
  it('publishes its grant type and the three client authentication methods', () => {
    const { grant } = setup();
    expect(grant.grantType).toBe('client_credentials');
    expect(grant.clientAuthMethods).toEqual(['client_secret_basic', 'client_secret_post', 'private_key_jwt']);
  });

  it('answers a token with the role’s permissions as scope, no refresh token, for each method', async () => {
    const { grant, request, basic, tokens } = setup();
    const expected = { token_type: 'Bearer', expires_in: 600, scope: 'users:read roles:read users:invite' };
    const viaBasic = await grant.exchange(CC, request(basic('reports', 'right')));
    expect(viaBasic).toMatchObject(expected);
    expect(viaBasic).not.toHaveProperty('refresh_token');
    await expect(grant.exchange({ ...CC, client_id: 'reports', client_secret: 'right' }, request())).resolves.toMatchObject(expected);
    await expect(
      grant.exchange({ ...CC, client_assertion_type: JWT_BEARER_ASSERTION, client_assertion: 'good.assertion.jwt' }, request()),
    ).resolves.toMatchObject(expected);
    expect(tokens.serviceTokens.map((t) => [t.subject, t.clientId])).toEqual([
      ['sa-1', 'reports'],
      ['sa-1', 'reports'],
      ['sa-1', 'reports'],
    ]);
  });

  it('answers the token’s lifetime as expires_in, however long the grant’s entry took to commit', async () => {
    const { grant, request, basic, clock } = setup();
    // Every reading of the clock a second later than the one before: the grant's own work crosses seconds.
    const now = clock.now.bind(clock);
    clock.now = () => {
      clock.advance(1000);
      return now();
    };
    await expect(grant.exchange(CC, request(basic('reports', 'right')))).resolves.toMatchObject({ expires_in: 600 });
  });

  it('remembers an assertion as its grant is recorded, so a replay is invalid_client, counted and audited, and no token leaves', async () => {
    const { grant, request, refusal, counter, auditTrail } = setup(3, { audited: true });
    const form = (assertion: string, scope?: string) => ({ ...CC, client_assertion_type: JWT_BEARER_ASSERTION, client_assertion: assertion, ...(scope ? { scope } : {}) });
    await expect(grant.exchange(form('good.assertion.1'), request())).resolves.toMatchObject({ token_type: 'Bearer' });
    expect(auditTrail.entries.map((e) => [e.action, e.code])).toEqual([['service_account.token_granted', 'private_key_jwt']]);
    expect(await refusal(grant.exchange(form('good.assertion.1'), request()))).toMatchObject({ error: 'invalid_client', status: 401 });
    // Counted against the address (never against a client id).
    expect([...counter.windows.entries()]).toEqual([['client-auth-failures:address:192.0.2.1', expect.objectContaining({ hits: 1 })]]);
    expect(auditTrail.entries.map((e) => [e.action, e.code]).at(-1)).toEqual(['service_account.authentication_failed', 'private_key_jwt']);
    // A refused scope uses the assertion up too: it cannot be tried again with another scope.
    expect(await refusal(grant.exchange(form('good.assertion.2', 'users:delete'), request()))).toMatchObject({ error: 'invalid_scope' });
    expect(await refusal(grant.exchange(form('good.assertion.2'), request()))).toMatchObject({ error: 'invalid_client' });
  });

  it('keeps a presented client id in the refusal’s entry only when it has an issued id’s shape: a secret typed as the id never lands in the trail', async () => {
    const { grant, request, basic, refusal, auditTrail } = setup(100, { audited: true });
    const secret = 'acs_Zq9vLrT4xWm2Yp8KdN3sHf6Gj1Bc5Ve7';
    const issuedShape = '01a1fc99-0000-7000-8000-000000000001';
    // Id and secret swapped, in Basic and in the form.
    expect(await refusal(grant.exchange(CC, request(basic(secret, 'reports'))))).toMatchObject({ error: 'invalid_client' });
    expect(await refusal(grant.exchange({ ...CC, client_id: secret, client_secret: 'reports' }, request()))).toMatchObject({ error: 'invalid_client' });
    expect(await refusal(grant.exchange({ ...CC, client_id: issuedShape, client_secret: 'wrong' }, request()))).toMatchObject({ error: 'invalid_client' });
    expect(auditTrail.entries.map((e) => [e.action, e.target?.snapshot])).toEqual([
      ['service_account.authentication_failed', null],
      ['service_account.authentication_failed', null],
      ['service_account.authentication_failed', issuedShape],
    ]);
    expect(JSON.stringify(auditTrail.entries)).not.toContain(secret);
  });

  it('reads HTTP Basic as RFC 6749 §2.3.1 says: id and secret form-urlencoded', async () => {
    const { grant, request, credentials } = setup();
    const header = `Basic ${Buffer.from('reports:right').toString('base64')}`;
    await expect(grant.exchange(CC, request(header))).resolves.toMatchObject({ token_type: 'Bearer' });
    const encoded = `Basic ${Buffer.from('a%3Ab%2Dc:x').toString('base64')}`;
    await grant.exchange(CC, request(encoded)).catch(() => undefined);
    expect(credentials.calls.at(-1)).toBe('secret a:b-c');
  });

  it('narrows to a scope the role holds, in the role’s order, and refuses any other as invalid_scope', async () => {
    const { grant, request, refusal } = setup();
    const post = { ...CC, client_id: 'reports', client_secret: 'right' };
    await expect(grant.exchange({ ...post, scope: 'users:invite users:read' }, request())).resolves.toMatchObject({ scope: 'users:read users:invite' });
    for (const scope of ['users:delete', 'users:read  roles:read', ' users:read', 'users:read "x"']) {
      expect(await refusal(grant.exchange({ ...post, scope }, request()))).toMatchObject({ error: 'invalid_scope', status: 400 });
    }
    await expect(grant.exchange({ ...post, scope: 'users:delete' }, request())).rejects.toBeInstanceOf(InvalidScopeError);
  });

  it('refuses two methods at once as invalid_request, and none, a wrong secret or a bad assertion as invalid_client 401 with WWW-Authenticate', async () => {
    const { grant, request, basic, refusal } = setup(0);
    const twice = [
      grant.exchange({ ...CC, client_id: 'reports', client_secret: 'right' }, request(basic('reports', 'right'))),
      grant.exchange({ ...CC, client_id: 'reports', client_secret: 'right', client_assertion_type: JWT_BEARER_ASSERTION, client_assertion: 'good.assertion.jwt' }, request()),
      grant.exchange({ ...CC, client_assertion_type: JWT_BEARER_ASSERTION, client_assertion: 'good.assertion.jwt' }, request(basic('reports', 'right'))),
      // Basic and a form secret without a form client_id: two methods still.
      grant.exchange({ ...CC, client_secret: 'right' }, request(basic('reports', 'right'))),
    ];
    for (const attempt of twice) expect(await refusal(attempt)).toMatchObject({ error: 'invalid_request', status: 400 });

    const failures = [
      grant.exchange(CC, request()),
      grant.exchange({ ...CC, client_id: 'reports' }, request()),
      grant.exchange(CC, request(basic('reports', 'wrong'))),
      grant.exchange(CC, request('Basic !!!')),
      grant.exchange(CC, request(`Basic ${Buffer.from('no-colon').toString('base64')}`)),
      grant.exchange({ ...CC, client_id: 'nobody', client_secret: 'right' }, request()),
      grant.exchange({ ...CC, client_assertion_type: JWT_BEARER_ASSERTION, client_assertion: 'bad.assertion.jwt' }, request()),
      // A client_id that is not the assertion's client.
      grant.exchange({ ...CC, client_id: 'someone-else', client_assertion_type: JWT_BEARER_ASSERTION, client_assertion: 'good.assertion.jwt' }, request()),
    ];
    for (const attempt of failures) {
      const error = await refusal(attempt);
      expect(error).toMatchObject({ error: 'invalid_client', status: 401 });
      expect(error.headers['www-authenticate']).toBe('Basic realm="access-control", charset="UTF-8"');
    }
  });

  it('refuses a client_id that is not Basic’s as invalid_request, and an unsupported method (another assertion type, a missing assertion, a secret without its client_id, a Bearer header) as invalid_client (RFC 6749 §5.2)', async () => {
    const { grant, request, basic, refusal } = setup();
    expect(await refusal(grant.exchange({ ...CC, client_id: 'other' }, request(basic('reports', 'right'))))).toMatchObject({ error: 'invalid_request', status: 400 });
    for (const attempt of [
      grant.exchange({ ...CC, client_assertion_type: 'urn:other', client_assertion: 'good.assertion.jwt' }, request()),
      grant.exchange({ ...CC, client_assertion_type: JWT_BEARER_ASSERTION }, request()),
      grant.exchange({ ...CC, client_secret: 'right' }, request()),
      grant.exchange(CC, request('Bearer a.b.c')),
    ]) {
      expect(await refusal(attempt)).toMatchObject({ error: 'invalid_client', status: 401 });
    }
  });

  it('counts failures per address, past the limit refuses from there without checking the credentials (429), and never by client id', async () => {
    const { grant, request, basic, refusal, credentials, clock } = setup(3);
    // Wrong secrets in one client's name from three addresses: that client, from a fourth, is not shut out.
    for (let i = 0; i < 3; i++) await grant.exchange(CC, request(basic('reports', 'wrong'), `192.0.2.${10 + i}`)).catch(() => undefined);
    await expect(grant.exchange(CC, request(basic('reports', 'right'), '198.51.100.7'))).resolves.toMatchObject({ token_type: 'Bearer' });

    // One address that failed three times, whatever client ids it named: its budget is spent, even for a right secret.
    for (let i = 0; i < 3; i++) await grant.exchange({ ...CC, client_id: `guess-${i}`, client_secret: 'x' }, request(undefined, '203.0.113.9')).catch(() => undefined);
    const calls = credentials.calls.length;
    const throttled = await refusal(grant.exchange(CC, request(basic('reports', 'right'), '203.0.113.9')));
    expect(throttled).toMatchObject({ error: 'invalid_request', status: 429 });
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
    expect(credentials.calls.length).toBe(calls);

    // A minute later the window ended.
    clock.advance(61_000);
    await expect(grant.exchange(CC, request(basic('reports', 'right'), '203.0.113.9'))).resolves.toMatchObject({ token_type: 'Bearer' });
  });

  it('audits the first refusal of a spent window, not each: a caller refused as fast as it sends adds one entry a window', async () => {
    const { grant, request, basic, refusal, auditTrail, clock } = setup(3, { audited: true });
    const codes = () => auditTrail.entries.filter((e) => e.action === 'service_account.authentication_failed').map((e) => e.code);
    for (let i = 0; i < 3; i++) await grant.exchange({ ...CC, client_id: `guess-${i}`, client_secret: 'x' }, request(undefined, '203.0.113.9')).catch(() => undefined);
    for (let i = 0; i < 50; i++) expect(await refusal(grant.exchange(CC, request(basic('reports', 'wrong'), '203.0.113.9')))).toMatchObject({ status: 429 });
    expect(codes()).toEqual(['client_secret_post', 'client_secret_post', 'client_secret_post', 'throttled']);
    // The refusals did not move the window's end: a minute after the first failure the address is checked again.
    clock.advance(61_000);
    await expect(grant.exchange(CC, request(basic('reports', 'right'), '203.0.113.9'))).resolves.toMatchObject({ token_type: 'Bearer' });
    for (let i = 0; i < 4; i++) await grant.exchange(CC, request(basic('reports', 'wrong'), '203.0.113.9')).catch(() => undefined);
    expect(codes().slice(4)).toEqual(['client_secret_basic', 'client_secret_basic', 'client_secret_basic', 'throttled']);
  });

  it('audits a spent window’s first refusal however far the failures went past the limit (failures sent at once)', async () => {
    const { grant, request, basic, refusal, auditTrail } = setup(3, { audited: true });
    // Ten wrong secrets at once: each checked before any is counted, so the window ends at 10, past the limit of 3.
    await Promise.all(Array.from({ length: 10 }, () => grant.exchange(CC, request(basic('reports', 'wrong'), '203.0.113.9')).catch(() => undefined)));
    for (let i = 0; i < 5; i++) expect(await refusal(grant.exchange(CC, request(basic('reports', 'wrong'), '203.0.113.9')))).toMatchObject({ status: 429 });
    expect(auditTrail.entries.filter((e) => e.code === 'throttled')).toHaveLength(1);
  });

  it('counts nothing for a success', async () => {
    const { grant, request, basic, counter } = setup(3);
    for (let i = 0; i < 5; i++) await grant.exchange(CC, request(basic('reports', 'right')));
    expect(counter.windows.size).toBe(0);
  });

  it('keeps OAuthError refusals as they are', async () => {
    const { grant, request } = setup();
    await expect(grant.exchange(CC, request())).rejects.toBeInstanceOf(OAuthError);
  });
});
