import { asValue } from 'awilix';
import type { Role } from '../../src/domain/roles/role';
import { SEEDED_ROLES } from '../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { AdjustableClock } from '../support/adjustable-clock';
import { ADMIN, startTestApp, type TestApp, type TestResponse } from '../support/test-app';
import { decodeJwt } from '../support/tokens';

/**
 * The OAuth 2.0 token endpoint (#21): `grant_type=refresh_token` through the same use case as
 * POST /v1/auth/refresh, form bodies only, and every refusal in RFC 6749 §5.2's JSON, never problem+json.
 */
const member: Role = { id: SEEDED_ROLES.member, name: 'member', permissions: [] };
const FORM = 'application/x-www-form-urlencoded';
const DAY = 86_400_000;

describe('POST /oauth/token (#21)', () => {
  let app: TestApp;
  const clock = new AdjustableClock();
  let counter = 0;

  beforeAll(async () => {
    app = await startTestApp({ ACCESS_TOKEN_TTL: '10m' }, { clock: asValue(clock) });
  });
  afterAll(async () => app.close());

  const person = async () => {
    counter += 1;
    const username = `oauth-${counter}`;
    const password = `${username}-long-password`;
    const user = await app.addJoinedUser({ username, password, email: `${username}@example.com`, role: member });
    const signedIn = await app.request('POST', '/v1/auth/signin', { json: { username, password } });
    expect(signedIn.status).toBe(200);
    return { id: user.id, accessToken: signedIn.body.accessToken as string, refreshToken: signedIn.body.refreshToken as string };
  };
  const token = (body: string | Record<string, string>, headers: Record<string, string> = { 'content-type': FORM }) =>
    app.request('POST', '/oauth/token', { body: typeof body === 'string' ? body : new URLSearchParams(body).toString(), headers });
  const refreshGrant = (refreshToken: string) => token({ grant_type: 'refresh_token', refresh_token: refreshToken });

  /** An RFC 6749 §5.2 refusal: JSON with `error` and a description, not problem+json, never cached. */
  const expectOAuthError = (response: TestResponse, status: number, error: string) => {
    expect({ status: response.status, error: response.body?.error }).toEqual({ status, error });
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Object.keys(response.body).sort()).toEqual(['error', 'error_description']);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('pragma')).toBe('no-cache');
  };

  it('exchanges a refresh token: the OAuth token response, not cached, whose tokens work', async () => {
    const p = await person();

    const response = await refreshGrant(p.refreshToken);

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('pragma')).toBe('no-cache');
    expect(Object.keys(response.body).sort()).toEqual(['access_token', 'expires_in', 'refresh_token', 'token_type']);
    expect(response.body.token_type).toBe('Bearer');
    expect(response.body.expires_in).toBe(600);
    const { payload } = decodeJwt(response.body.access_token);
    expect((payload.exp as number) - (payload.iat as number)).toBe(600);
    expect(response.body.refresh_token).toMatch(/^[0-9a-f]{32}[A-Za-z0-9_-]{43}$/);
    expect((await app.request('GET', '/v1/me', { token: response.body.access_token })).body._id).toBe(p.id);
  });

  it('is one code path with POST /v1/auth/refresh: each route takes the other’s successor, and a reuse across them revokes the family', async () => {
    const p = await person();
    const viaOAuth = await refreshGrant(p.refreshToken);
    const viaApi = await app.request('POST', '/v1/auth/refresh', { json: { refreshToken: viaOAuth.body.refresh_token } });
    expect(viaApi.status).toBe(200);
    const again = await refreshGrant(viaApi.body.refreshToken);
    expect(again.status).toBe(200);

    // The first token, used at /oauth/token, presented again at /v1/auth/refresh: a reuse, which ends the family.
    expect((await app.request('POST', '/v1/auth/refresh', { json: { refreshToken: p.refreshToken } })).status).toBe(401);
    expectOAuthError(await refreshGrant(again.body.refresh_token), 400, 'invalid_grant');
  });

  it('checks client credentials sent with a refresh token, as revocation does: wrong ones are invalid_client and use nothing up', async () => {
    const p = await person();
    const basic = `Basic ${Buffer.from('01a1fc99-0000-7000-8000-000000000001:wrong').toString('base64')}`;
    expectOAuthError(await token({ grant_type: 'refresh_token', refresh_token: p.refreshToken }, { 'content-type': FORM, authorization: basic }), 401, 'invalid_client');
    expectOAuthError(await token({ grant_type: 'refresh_token', refresh_token: p.refreshToken, client_id: 'someone', client_secret: 'wrong' }), 401, 'invalid_client');
    // A bearer token some HTTP clients add to every request is no client authentication: the refresh goes through.
    const withBearer = await token({ grant_type: 'refresh_token', refresh_token: p.refreshToken }, { 'content-type': FORM, authorization: `Bearer ${p.accessToken}` });
    expect(withBearer.status).toBe(200);
  });

  it('answers invalid_grant, one answer for all, to an unknown, used, expired or signed-out refresh token', async () => {
    const unknown = await refreshGrant('x'.repeat(43));
    expectOAuthError(unknown, 400, 'invalid_grant');
    // Longer than any refresh token: refused by the form's schema before any lookup.
    expectOAuthError(await refreshGrant('x'.repeat(500)), 400, 'invalid_request');

    const used = await person();
    expect((await refreshGrant(used.refreshToken)).status).toBe(200);
    const reused = await refreshGrant(used.refreshToken);
    expectOAuthError(reused, 400, 'invalid_grant');

    const signedOut = await person();
    expect((await app.request('POST', '/v1/auth/signout', { token: signedOut.accessToken })).status).toBe(204);
    const afterSignOut = await refreshGrant(signedOut.refreshToken);
    expectOAuthError(afterSignOut, 400, 'invalid_grant');

    const idle = await person();
    clock.advance(8 * DAY);
    const expired = await refreshGrant(idle.refreshToken);
    expectOAuthError(expired, 400, 'invalid_grant');

    expect(new Set([unknown, reused, afterSignOut, expired].map((r) => r.text)).size).toBe(1);
  });

  it.each([
    ['no grant_type', { refresh_token: 'x' }, 'invalid_request'],
    ['an empty grant_type', { grant_type: '' }, 'invalid_request'],
    ['an unknown grant_type', { grant_type: 'password', username: 'admin', password: 'admin-password-123' }, 'unsupported_grant_type'],
    ['no refresh_token', { grant_type: 'refresh_token' }, 'invalid_request'],
    ['a scope (the tokens carry none)', { grant_type: 'refresh_token', refresh_token: 'x'.repeat(43), scope: 'users:read' }, 'invalid_scope'],
  ])('answers %s with %s', async (_what, body, error) => {
    expectOAuthError(await token(body as Record<string, string>), 400, error);
  });

  it('refuses a parameter given twice (RFC 6749 §3.2) and ignores unknown ones', async () => {
    expectOAuthError(await token('grant_type=refresh_token&grant_type=refresh_token&refresh_token=x'), 400, 'invalid_request');
    const p = await person();
    expectOAuthError(await token(`grant_type=refresh_token&refresh_token=${p.refreshToken}&refresh_token=${p.refreshToken}`), 400, 'invalid_request');
    const withUnknown = await token({ grant_type: 'refresh_token', refresh_token: p.refreshToken, client_id: 'some-app', extra: 'ignored' });
    expect(withUnknown.status).toBe(200);
  });

  it('reads a form with a charset parameter', async () => {
    const p = await person();
    const response = await token({ grant_type: 'refresh_token', refresh_token: p.refreshToken }, { 'content-type': `${FORM}; charset=UTF-8` });
    expect(response.status).toBe(200);
  });

  it.each([
    ['a JSON body', '{"grant_type":"refresh_token","refresh_token":"x"}', { 'content-type': 'application/json' }],
    ['a text/plain body', 'grant_type=refresh_token', { 'content-type': 'text/plain' }],
    ['a multipart body', '--x\r\n\r\n--x--', { 'content-type': 'multipart/form-data; boundary=x' }],
    ['no body', '', {}],
    ['malformed percent-encoding', 'grant_type=%E0%A4%A&refresh_token=%', { 'content-type': FORM }],
    ['a __proto__ field', '__proto__=x&grant_type=refresh_token', { 'content-type': FORM }],
  ])('answers %s with an OAuth error, never problem+json or a 5xx', async (_what, body, headers) => {
    const response = await app.request('POST', '/oauth/token', { body: body === '' ? undefined : body, headers });
    expect(response.status).toBe(400);
    expect(['invalid_request', 'unsupported_grant_type']).toContain(response.body.error);
    expectOAuthError(response, 400, response.body.error);
  });

  it('answers a body over BODY_LIMIT with 413 invalid_request, in OAuth’s error JSON', async () => {
    const response = await token(`grant_type=refresh_token&refresh_token=${'x'.repeat(20_000)}`);
    expectOAuthError(response, 413, 'invalid_request');
  });

  it('is published in discovery with what it takes', async () => {
    const metadata = (await app.request('GET', '/.well-known/oauth-authorization-server')).body;
    expect(new URL(metadata.token_endpoint).pathname).toBe('/oauth/token');
    expect(metadata.grant_types_supported).toEqual(['refresh_token', 'client_credentials']);
    expect(metadata.token_endpoint_auth_methods_supported).toEqual(['none', 'client_secret_basic', 'client_secret_post', 'private_key_jwt']);
  });

  it('answers another method with 405 and Allow, in OAuth’s error JSON', async () => {
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const response = await app.request(method, '/oauth/token');
      expectOAuthError(response, 405, 'invalid_request');
      expect(response.headers.get('allow')).toBe('POST');
      expect(response.body.error_description).toBe(`${method} is not allowed on /oauth/token; allowed: POST`);
    }
  });

  describe('logged at info', () => {
    const lines: string[] = [];
    let logged: TestApp;
    beforeAll(async () => {
      logged = await startTestApp({ LOG_LEVEL: 'info' }, {}, undefined, { write: (line) => lines.push(line) });
    });
    afterAll(async () => logged.close());

    it('writes no refresh or access token to the log, exchanged or refused', async () => {
      const signedIn = await logged.request('POST', '/v1/auth/signin', { json: { username: 'admin', password: 'admin-password-123' } });
      const send = (refreshToken: string) =>
        logged.request('POST', '/oauth/token', { body: `grant_type=refresh_token&refresh_token=${refreshToken}`, headers: { 'content-type': FORM } });
      const granted = await send(signedIn.body.refreshToken);
      expect(granted.status).toBe(200);
      expect((await send(signedIn.body.refreshToken)).status).toBe(400);

      expect(lines.join('\n')).toContain('request refused');
      for (const secret of [signedIn.body.refreshToken, granted.body.refresh_token, granted.body.access_token]) expect(lines.join('\n')).not.toContain(secret);
    });
  });

  describe('rate limited as POST /v1/auth/refresh is', () => {
    let limited: TestApp;
    beforeAll(async () => {
      limited = await startTestApp({ ADDRESS_RATE_LIMIT: '3' });
    });
    afterAll(async () => limited.close());

    it('spends the per-address budget and answers 429 in OAuth JSON with Retry-After', async () => {
      const send = (body: string) => limited.request('POST', '/oauth/token', { body, headers: { 'content-type': FORM } });
      for (let i = 0; i < 2; i++) expect((await send('grant_type=refresh_token&refresh_token=x')).status).toBe(400);
      // The same budget as the JSON refresh route.
      expect((await limited.request('POST', '/v1/auth/refresh', { json: { refreshToken: 'x' } })).status).toBe(401);
      const refused = await send('not a form at all');
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expectOAuthError(refused, 429, 'invalid_request');
    });
  });

  describe('client credentials spend no per-address budget (review N)', () => {
    let limited: TestApp;
    beforeAll(async () => {
      limited = await startTestApp({ ADDRESS_RATE_LIMIT: '3' });
    });
    afterAll(async () => limited.close());

    it('a service gets tokens beyond ADDRESS_RATE_LIMIT, and people at its address still sign in', async () => {
      const admin = await limited.signIn();
      const role = await limited.request('POST', '/v1/roles', { token: admin, json: { name: 'tokenreader', permissions: ['users:read'] } });
      expect(role.status).toBe(201);
      const created = await limited.request('POST', '/v1/service-accounts', { token: admin, json: { name: 'busy-service', role: 'tokenreader' } });
      expect(created.status).toBe(201);
      const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: created.body.client_id, client_secret: created.body.client_secret }).toString();
      const statuses = [];
      for (let i = 0; i < 6; i++) statuses.push((await limited.request('POST', '/oauth/token', { body: form, headers: { 'content-type': FORM } })).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);
      // The admin's sign-in spent one of three: two more pass, the next is refused.
      const signIns = [];
      for (let i = 0; i < 3; i++) signIns.push((await limited.request('POST', '/v1/auth/signin', { json: { username: ADMIN.username, password: ADMIN.password } })).status);
      expect(signIns).toEqual([200, 200, 429]);
    });
  });
});
