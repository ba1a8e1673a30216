import type { FastifyRequest } from 'fastify';
import type { RateLimitCounter, RateLimitWindow } from '../../../src/application/ports/rate-limit-counter.port';
import type { AssertionAudience, AuthenticatedServiceAccount, ServiceAccountCredentials } from '../../../src/application/ports/service-account-credentials.port';
import { authenticateClient, JWT_BEARER_ASSERTION, presentedClient } from '../../../src/interfaces/http/oauth/client-authentication';
import { OAuthError } from '../../../src/interfaces/http/oauth/oauth-error';
import { HttpProblemError } from '../../../src/interfaces/http/problem';
import { FixedClock } from '../../support/fakes/fixed-clock';

const ACCOUNT: AuthenticatedServiceAccount = { id: 'sa-1', clientId: 'reports', roleId: 'role-1', method: 'client_secret' };
const AUDIENCE: AssertionAudience = { tokenEndpointUrl: 'https://id.example.com/oauth/token', issuer: 'https://id.example.com' };

class StubCredentials implements ServiceAccountCredentials {
  readonly calls: string[] = [];
  async authenticateWithSecret(clientId: string, secret: string) {
    this.calls.push(`secret ${clientId}`);
    return clientId === 'reports' && secret === 'right: &+' ? ACCOUNT : null;
  }
  async authenticateWithAssertion(assertion: string) {
    this.calls.push('assertion');
    return assertion === 'good.assertion.jwt' ? { ...ACCOUNT, method: 'private_key_jwt' as const } : null;
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

const request = (authorization?: string, ip = '192.0.2.7') => ({ headers: authorization ? { authorization } : {}, ip }) as unknown as FastifyRequest;
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
const oauthError = (error: string, status: number) => expect.objectContaining({ error, status });

describe('client authentication at the revocation and introspection endpoints', () => {
  it('reads HTTP Basic (form-urlencoded id and secret), the form’s secret, or an assertion; a client_id alone is a public client', () => {
    expect(presentedClient({}, request(basic('reports', 'right: &+')))).toEqual({ method: 'client_secret_basic', clientId: 'reports', secret: 'right: &+' });
    expect(presentedClient({ client_id: 'reports', client_secret: 's' }, request())).toEqual({ method: 'client_secret_post', clientId: 'reports', secret: 's' });
    expect(presentedClient({ client_assertion_type: JWT_BEARER_ASSERTION, client_assertion: 'a.b.c' }, request())).toEqual({ method: 'private_key_jwt', clientId: '', assertion: 'a.b.c' });
    expect(presentedClient({ client_id: 'some-app' }, request())).toEqual({ method: 'none' });
    expect(presentedClient({}, request())).toEqual({ method: 'none' });
  });

  it.each([
    ['a bearer token', {}, 'Bearer abc.def.ghi', 'invalid_client', 401],
    ['a malformed Basic header', {}, 'Basic !!!', 'invalid_client', 401],
    ['Basic without a colon', {}, `Basic ${Buffer.from('reports').toString('base64')}`, 'invalid_client', 401],
    ['a secret without its client_id', { client_secret: 's' }, undefined, 'invalid_client', 401],
    ['an assertion of another type', { client_assertion_type: 'saml', client_assertion: 'x' }, undefined, 'invalid_client', 401],
    ['two methods at once', { client_id: 'reports', client_secret: 's' }, basic('reports', 's'), 'invalid_request', 400],
    ['a form client_id other than Basic’s', { client_id: 'other' }, basic('reports', 's'), 'invalid_request', 400],
  ])('refuses %s', (_what, parameters, authorization, error, status) => {
    expect(() => presentedClient(parameters as Record<string, string>, request(authorization))).toThrow(OAuthError);
    try {
      presentedClient(parameters as Record<string, string>, request(authorization));
    } catch (refusal) {
      expect(refusal).toEqual(oauthError(error, status));
      if (status === 401) expect((refusal as OAuthError).headers['www-authenticate']).toMatch(/^Basic /);
    }
  });

  describe('authenticateClient', () => {
    const setup = (failuresPerMinute = 3) => {
      const credentials = new StubCredentials();
      const counter = new MemoryCounter();
      const clock = new FixedClock();
      const deps = { serviceAccountCredentials: credentials, assertionAudience: AUDIENCE, rateLimitCounter: counter, clock, failuresPerMinute };
      return { deps, credentials, counter, clock };
    };

    it('answers the account of valid credentials, by secret or assertion', async () => {
      const { deps } = setup();
      await expect(authenticateClient(deps, presentedClient({}, request(basic('reports', 'right: &+'))), request())).resolves.toEqual(ACCOUNT);
      const assertion = presentedClient({ client_assertion_type: JWT_BEARER_ASSERTION, client_assertion: 'good.assertion.jwt' }, request());
      await expect(authenticateClient(deps, assertion, request())).resolves.toMatchObject({ method: 'private_key_jwt' });
    });

    it('refuses no credentials, wrong ones and a non-ASCII client id with invalid_client, checking nothing for the last', async () => {
      const { deps, credentials } = setup();
      await expect(authenticateClient(deps, { method: 'none' }, request())).rejects.toEqual(oauthError('invalid_client', 401));
      await expect(authenticateClient(deps, { method: 'client_secret_post', clientId: 'reports', secret: 'wrong' }, request())).rejects.toEqual(oauthError('invalid_client', 401));
      await expect(authenticateClient(deps, { method: 'client_secret_post', clientId: '\u0080', secret: '' }, request())).rejects.toEqual(oauthError('invalid_client', 401));
      expect(credentials.calls).toEqual(['secret reports']);
    });

    it('counts failures per address, refuses unchecked from there once spent, and never shuts a client out by its id (the token endpoint’s counters)', async () => {
      const { deps, credentials, counter, clock } = setup(2);
      const wrong = { method: 'client_secret_post' as const, clientId: 'reports', secret: 'wrong' };
      for (let n = 0; n < 2; n++) await expect(authenticateClient(deps, wrong, request())).rejects.toBeInstanceOf(OAuthError);
      expect([...counter.windows.keys()]).toEqual(['client-auth-failures:address:192.0.2.7']);
      const right = { method: 'client_secret_post' as const, clientId: 'reports', secret: 'right: &+' };
      await expect(authenticateClient(deps, right, request())).rejects.toBeInstanceOf(HttpProblemError);
      expect(credentials.calls).toHaveLength(2);
      // The client itself, from its own address, is not refused for the failures sent in its name.
      await expect(authenticateClient(deps, right, request(undefined, '198.51.100.4'))).resolves.toEqual(ACCOUNT);
      clock.advance(60_000);
      await expect(authenticateClient(deps, right, request())).resolves.toEqual(ACCOUNT);
    });
  });
});
