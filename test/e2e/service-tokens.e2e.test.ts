import { execFile } from 'node:child_process';
import { generateKeyPairSync, type KeyObject, randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { startTestApp, type TestApp, type TestResponse } from '../support/test-app';
import { decodeJwt } from '../support/tokens';

/**
 * Service tokens (#21): the client credentials grant at POST /oauth/token with each client authentication
 * method, and its tokens on the API as a user's, current at every request (disabled, deleted, re-roled).
 */
const FORM = 'application/x-www-form-urlencoded';
const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/**
 * A client assertion signed by `jose` (devDependencies), as a Node client would make one. jose is an ES
 * module, which jest's CommonJS runtime cannot load: it signs in a Node process of its own.
 */
const SIGN_WITH_JOSE = `
import { importJWK, SignJWT } from 'jose';
const { jwk, header, claims } = JSON.parse(process.argv[1]);
process.stdout.write(await new SignJWT(claims).setProtectedHeader(header).sign(await importJWK(jwk, header.alg)));
`;
async function signWithJose(privateKey: KeyObject, header: Record<string, unknown>, claims: Record<string, unknown>): Promise<string> {
  const input = JSON.stringify({ jwk: privateKey.export({ format: 'jwk' }), header, claims });
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', SIGN_WITH_JOSE, input], {
    cwd: path.join(__dirname, '../..'),
  });
  return stdout;
}

describe('service tokens (#21)', () => {
  let app: TestApp;
  let admin: string;
  let counter = 0;
  let discovery: { issuer: string; token_endpoint: string };

  beforeAll(async () => {
    app = await startTestApp({ SERVICE_TOKEN_TTL: '5m', CLIENT_AUTH_RATE_LIMIT: '0' });
    admin = await app.signIn();
    discovery = (await app.request('GET', '/.well-known/openid-configuration')).body;
  });
  afterAll(async () => app.close());

  const unique = (prefix: string) => `${prefix}-${++counter}`;
  const role = async (permissions: string[]) => {
    const name = unique('svcrole').replace(/-/g, '');
    const created = await app.request('POST', '/v1/roles', { token: admin, json: { name, permissions } });
    expect(created.status).toBe(201);
    return name;
  };
  /** A service account of a role holding `permissions`: its id, client id and secret. */
  const account = async (permissions = ['users:read', 'users:invite', 'roles:read']) => {
    const created = await app.request('POST', '/v1/service-accounts', { token: admin, json: { name: unique('svc'), role: await role(permissions) } });
    expect(created.status).toBe(201);
    return { id: created.body._id as string, clientId: created.body.client_id as string, secret: created.body.client_secret as string };
  };
  const token = (form: Record<string, string>, headers: Record<string, string> = {}) =>
    app.request('POST', '/oauth/token', { body: new URLSearchParams(form).toString(), headers: { 'content-type': FORM, ...headers } });
  const basic = (id: string, secret: string) => ({
    authorization: `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`,
  });
  const viaPost = async (a: { clientId: string; secret: string }, scope?: string) => {
    const response = await token({ grant_type: 'client_credentials', client_id: a.clientId, client_secret: a.secret, ...(scope ? { scope } : {}) });
    expect(response.status).toBe(200);
    return response.body.access_token as string;
  };
  const expectOAuthError = (response: TestResponse, status: number, error: string) => {
    expect({ status: response.status, error: response.body?.error }).toEqual({ status, error });
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('cache-control')).toBe('no-store');
  };
  /** A key registered on the account, and assertions signed with it (jose, as a client would). */
  const keyed = async (a: { id: string; clientId: string }) => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = { ...(publicKey.export({ format: 'jwk' }) as Record<string, string>), kid: 'k1', alg: 'ES256', use: 'sig' };
    const put = await app.request('PUT', `/v1/service-accounts/${a.id}/keys`, { token: admin, json: { keys: [jwk] } });
    expect(put.status).toBe(200);
    const assertion = (claims: Record<string, unknown> = {}, options: { aud?: string; exp?: number } = {}) => {
      const now = Math.floor(Date.now() / 1000);
      return signWithJose(
        privateKey,
        { alg: 'ES256', kid: 'k1' },
        { iss: a.clientId, sub: a.clientId, aud: options.aud ?? discovery.token_endpoint, iat: now, exp: options.exp ?? now + 60, jti: randomUUID(), ...claims },
      );
    };
    return { assertion };
  };
  const viaAssertion = (clientAssertion: string, extra: Record<string, string> = {}) =>
    token({ grant_type: 'client_credentials', client_assertion_type: JWT_BEARER, client_assertion: clientAssertion, ...extra });

  it('is published by discovery: the grant, the three methods, the assertion algorithms and the permission names as scopes', () => {
    expect(discovery).toMatchObject({
      grant_types_supported: expect.arrayContaining(['client_credentials']),
      token_endpoint_auth_methods_supported: expect.arrayContaining(['client_secret_basic', 'client_secret_post', 'private_key_jwt']),
      token_endpoint_auth_signing_alg_values_supported: ['ES256', 'RS256', 'EdDSA'],
      scopes_supported: expect.arrayContaining(['users:read', 'users:invite', 'service-accounts:write']),
    });
  });

  it('gives a token by client_secret_basic, client_secret_post and private_key_jwt, each working on GET /v1/users', async () => {
    const a = await account();
    const { assertion } = await keyed(a);
    const answers = [
      await token({ grant_type: 'client_credentials' }, basic(a.clientId, a.secret)),
      await token({ grant_type: 'client_credentials', client_id: a.clientId, client_secret: a.secret }),
      await viaAssertion(await assertion()),
      // aud may be the issuer too.
      await viaAssertion(await assertion({}, { aud: discovery.issuer })),
    ];
    for (const response of answers) {
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(Object.keys(response.body).sort()).toEqual(['access_token', 'expires_in', 'scope', 'token_type']);
      expect(response.body).toMatchObject({ token_type: 'Bearer', expires_in: 300 });
      expect(response.body.scope.split(' ').sort()).toEqual(['roles:read', 'users:invite', 'users:read']);
      const { header, payload } = decodeJwt(response.body.access_token);
      expect(header.kid).toBeDefined();
      expect(payload).toMatchObject({ iss: discovery.issuer, sub: a.id, client_id: a.clientId, scope: response.body.scope });
      expect(payload).not.toHaveProperty('ver');
      expect((payload.exp as number) - (payload.iat as number)).toBe(300);
      const users = await app.request('GET', '/v1/users', { token: response.body.access_token });
      expect(users.status).toBe(200);
    }
  });

  it('narrows to a scope: a permission left out is refused; one the role lacks is invalid_scope', async () => {
    const a = await account();
    const narrow = await token({ grant_type: 'client_credentials', client_id: a.clientId, client_secret: a.secret, scope: 'roles:read' });
    expect(narrow.body.scope).toBe('roles:read');
    expect((await app.request('GET', '/v1/roles', { token: narrow.body.access_token })).status).toBe(200);
    const refused = await app.request('GET', '/v1/users', { token: narrow.body.access_token });
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 403, code: 'PERMISSION_DENIED' });
    // RFC 6750 §3.1: the challenge says the token's scope is short, and of what.
    expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="access-control", error="insufficient_scope", scope="users:read"');
    expectOAuthError(await token({ grant_type: 'client_credentials', client_id: a.clientId, client_secret: a.secret, scope: 'users:delete' }), 400, 'invalid_scope');
  });

  it('refuses bad client authentication with the right OAuth error, never a 500', async () => {
    const a = await account();
    const { assertion } = await keyed(a);
    const cc = { grant_type: 'client_credentials' };
    const wrongBasic = await token(cc, basic(a.clientId, `${a.secret}x`));
    expectOAuthError(wrongBasic, 401, 'invalid_client');
    expect(wrongBasic.headers.get('www-authenticate')).toMatch(/^Basic realm="/);
    expectOAuthError(await token({ ...cc, client_id: a.clientId, client_secret: 'wrong' }), 401, 'invalid_client');
    expectOAuthError(await token({ ...cc, client_id: 'no-such-client', client_secret: a.secret }), 401, 'invalid_client');
    expectOAuthError(await token(cc), 401, 'invalid_client');

    const once = await assertion();
    expect((await viaAssertion(once)).status).toBe(200);
    expectOAuthError(await viaAssertion(once), 401, 'invalid_client'); // replayed
    const now = Math.floor(Date.now() / 1000);
    expectOAuthError(await viaAssertion(await assertion({}, { exp: now - 60 })), 401, 'invalid_client'); // expired
    expectOAuthError(await viaAssertion(await assertion({}, { exp: now + 3600 })), 401, 'invalid_client'); // too far ahead
    expectOAuthError(await viaAssertion(await assertion({}, { aud: 'https://elsewhere.example/oauth/token' })), 401, 'invalid_client');
    const [head, body] = (await assertion()).split('.');
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', kid: 'k1' })).toString('base64url')}.${body}.`;
    expectOAuthError(await viaAssertion(none), 401, 'invalid_client');
    expectOAuthError(await viaAssertion(`${head}.${body}.${'A'.repeat(86)}`), 401, 'invalid_client'); // another signature
    // Another key under the same kid.
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const forged = await signWithJose(
      other,
      { alg: 'ES256', kid: 'k1' },
      { iss: a.clientId, sub: a.clientId, aud: discovery.token_endpoint, exp: now + 60, jti: randomUUID() },
    );
    expectOAuthError(await viaAssertion(forged), 401, 'invalid_client');
    expectOAuthError(await viaAssertion('x'.repeat(9000)), 400, 'invalid_request'); // oversized
    // An unsupported authentication method is failed client authentication (RFC 6749 §5.2).
    expectOAuthError(await viaAssertion(await assertion(), { client_assertion_type: 'urn:other' }), 401, 'invalid_client');
    // Two methods at once.
    expectOAuthError(await token({ ...cc, client_id: a.clientId, client_secret: a.secret }, basic(a.clientId, a.secret)), 400, 'invalid_request');
    expectOAuthError(await viaAssertion(await assertion(), { client_id: a.clientId, client_secret: a.secret }), 400, 'invalid_request');
  });

  it('treats a parameter sent without a value as not sent (RFC 6749 §3.1), and refuses one given twice with values', async () => {
    const a = await account(['users:read']);
    const cc = 'grant_type=client_credentials';
    const withBasic = (body: string) => app.request('POST', '/oauth/token', { body, headers: { 'content-type': FORM, ...basic(a.clientId, a.secret) } });
    for (const empty of ['client_id=', 'client_secret=', 'client_assertion_type=', 'client_assertion=', 'client_id=&client_secret=', 'scope=&scope=users:read']) {
      const answer = await withBasic(`${cc}&${empty}`);
      expect([empty, answer.status, answer.body.error]).toEqual([empty, 200, undefined]);
    }
    expect((await withBasic(`${cc}&scope=&scope=users:read`)).body.scope).toBe('users:read');
    expectOAuthError(await withBasic(`${cc}&scope=users:read&scope=users:read`), 400, 'invalid_request');
    expect((await withBasic(`grant_type=&${cc}&grant_type=`)).status).toBe(200);
    // The same at revocation: an empty client_id and client_secret are no client authentication.
    const revoked = await app.request('POST', '/oauth/revoke', { body: 'token=abc&client_id=&client_secret=', headers: { 'content-type': FORM } });
    expect(revoked.status).toBe(200);
  });

  it('follows the account at every request: a new role’s permissions, disabled (its tokens stay ended when enabled again), deleted', async () => {
    const a = await account(['users:read']);
    const accessToken = await viaPost(a);
    expect((await app.request('GET', '/v1/users', { token: accessToken })).status).toBe(200);
    // A second replica (its own key, cache and revocation signal) with a token of its own, used before the disabling.
    const second = await startTestApp({}, {}, app.database);
    const viaSecond = async () => {
      const response = await second.request('POST', '/oauth/token', {
        body: new URLSearchParams({ grant_type: 'client_credentials', client_id: a.clientId, client_secret: a.secret }).toString(),
        headers: { 'content-type': FORM },
      });
      expect(response.status).toBe(200);
      return response.body.access_token as string;
    };
    const there = await viaSecond();
    expect((await second.request('GET', '/v1/users', { token: there })).status).toBe(200);

    const member = await app.request('PATCH', `/v1/service-accounts/${a.id}`, { token: admin, json: { role: 'member' } });
    expect(member.status).toBe(200);
    expect((await app.request('GET', '/v1/users', { token: accessToken })).status).toBe(403);
    await app.request('PATCH', `/v1/service-accounts/${a.id}`, { token: admin, json: { role: await role(['users:read']) } });
    expect((await app.request('GET', '/v1/users', { token: accessToken })).status).toBe(200);

    await app.request('PATCH', `/v1/service-accounts/${a.id}`, { token: admin, json: { disabled: true } });
    const disabled = await app.request('GET', '/v1/users', { token: accessToken });
    expect({ status: disabled.status, code: disabled.body.code }).toEqual({ status: 401, code: 'UNAUTHENTICATED' });
    // A disabled account gets no new token either (one answer for every failed authentication).
    expectOAuthError(await token({ grant_type: 'client_credentials', client_id: a.clientId, client_secret: a.secret }), 401, 'invalid_client');
    await app.request('PATCH', `/v1/service-accounts/${a.id}`, { token: admin, json: { disabled: false } });
    // Enabled again within the second it was disabled in: the new token is issued in the next second, so it works.
    const renewed = await viaPost(a);
    expect((await app.request('GET', '/v1/users', { token: renewed })).status).toBe(200);
    // The token the disabling ended stays ended (a leaked one does not come back), here and to introspection.
    expect((await app.request('GET', '/v1/users', { token: accessToken })).status).toBe(401);
    const introspector = await account(['tokens:introspect']);
    const introspected = await app.request('POST', '/oauth/introspect', {
      body: new URLSearchParams({ token: accessToken }).toString(),
      headers: { 'content-type': FORM, ...basic(introspector.clientId, introspector.secret) },
    });
    expect({ status: introspected.status, body: introspected.body }).toEqual({ status: 200, body: { active: false } });
    // Revocation agrees (RFC 7009 §2.2): an active service token cannot be revoked alone, an ended one is already invalid.
    const revoke = (t: string) => app.request('POST', '/oauth/revoke', { body: new URLSearchParams({ token: t }).toString(), headers: { 'content-type': FORM } });
    expectOAuthError(await revoke(renewed), 400, 'unsupported_token_type');
    expect((await revoke(accessToken)).status).toBe(200);
    // The other replica judges its own tokens the same.
    try {
      expect((await second.request('GET', '/v1/users', { token: there })).status).toBe(401);
      expect((await second.request('GET', '/v1/users', { token: await viaSecond() })).status).toBe(200);
    } finally {
      await second.api.close();
    }

    expect((await app.request('DELETE', `/v1/service-accounts/${a.id}`, { token: admin })).status).toBe(204);
    expect((await app.request('GET', '/v1/users', { token: renewed })).status).toBe(401);
    expect((await revoke(renewed)).status).toBe(200);
  });

  it('records an invite by the account with invited_by its id', async () => {
    const a = await account();
    const email = `${unique('invitee')}@example.com`;
    expect((await app.request('POST', '/v1/users/invite', { token: await viaPost(a), json: { email } })).status).toBe(201);
    const list = await app.request('GET', '/v1/users?page_size=100', { token: admin });
    expect(list.body.users.find((u: { email: string }) => u.email === email)).toMatchObject({ invited_by: a.id });
  });

  it('throttles failed client authentication per address, counted for every replica together, and never shuts a client out by its id', async () => {
    const a = await account();
    const replicas = [
      await startTestApp({ CLIENT_AUTH_RATE_LIMIT: '3', TRUSTED_PROXIES: '127.0.0.1' }, {}, app.database),
      await startTestApp({ CLIENT_AUTH_RATE_LIMIT: '3', TRUSTED_PROXIES: '127.0.0.1' }, {}, app.database),
    ];
    try {
      const at = (i: number, form: Record<string, string>, address: string) =>
        replicas[i % 2]!.request('POST', '/oauth/token', {
          body: new URLSearchParams(form).toString(),
          headers: { 'content-type': FORM, 'x-forwarded-for': address },
        });
      const wrong = { grant_type: 'client_credentials', client_id: a.clientId, client_secret: 'wrong' };
      for (let i = 0; i < 3; i++) expectOAuthError(await at(i, wrong, '203.0.113.50'), 401, 'invalid_client');
      // Spent on both replicas for that address: even the right secret is refused from there, unchecked, until the window ends.
      for (let i = 0; i < 2; i++) {
        const throttled = await at(i, { ...wrong, client_secret: a.secret }, '203.0.113.50');
        expectOAuthError(throttled, 429, 'invalid_request');
        expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      // The client itself, from its own address, still gets its token on either replica: the failures sent in its name
      // do not shut it out.
      for (let i = 0; i < 2; i++) expect((await at(i, { ...wrong, client_secret: a.secret }, '198.51.100.60')).status).toBe(200);
    } finally {
      for (const replica of replicas) await replica.api.close();
    }
  });

  it('applies a change made through one replica at the next request on another', async () => {
    const a = await account(['users:read']);
    const second = await startTestApp({ ACTOR_CACHE_TTL: '60s' }, {}, app.database);
    try {
      const response = await second.request('POST', '/oauth/token', {
        body: new URLSearchParams({ grant_type: 'client_credentials', client_id: a.clientId, client_secret: a.secret }).toString(),
        headers: { 'content-type': FORM },
      });
      const there = response.body.access_token as string;
      expect((await second.request('GET', '/v1/users', { token: there })).status).toBe(200);
      // A role change moves the role catalogue's revision, which every replica reads at each request.
      const permissions = await app.request('GET', '/v1/roles?page_size=100', { token: admin });
      expect(permissions.status).toBe(200);
      await app.request('PATCH', `/v1/service-accounts/${a.id}`, { token: admin, json: { role: 'member' } });
      expect((await second.request('GET', '/v1/users', { token: there })).status).toBe(403);
    } finally {
      await second.api.close();
    }
  });

  it('answers GET /v1/me for a service token with 404 NOT_A_USER, and a user’s token is never taken for a service’s', async () => {
    const a = await account();
    const me = await app.request('GET', '/v1/me', { token: await viaPost(a) });
    expect({ status: me.status, code: me.body.code }).toEqual({ status: 404, code: 'NOT_A_USER' });
    const password = await app.request('POST', '/v1/me/password', {
      token: await viaPost(a),
      json: { current_password: 'whatever-long', new_password: 'another-long-password-1' },
    });
    expect({ status: password.status, code: password.body.code }).toEqual({ status: 404, code: 'NOT_A_USER' });
    // Sign-out has no session to end: 204, and the token works on (it ends at its expiry, or by disabling the account).
    const signedOut = await viaPost(a);
    expect((await app.request('POST', '/v1/auth/signout', { token: signedOut })).status).toBe(204);
    expect((await app.request('GET', '/v1/users', { token: signedOut })).status).toBe(200);
    // Nor is a sign-out audited that did not happen (it was, as a user's, naming the account as a user).
    const trail = await app.request('GET', `/v1/audit-events?actor=${a.id}&action=auth.signed_out`, { token: admin });
    expect({ status: trail.status, entries: trail.body.audit_events }).toEqual({ status: 200, entries: [] });
    // The admin's token still reads its own account.
    expect((await app.request('GET', '/v1/me', { token: admin })).status).toBe(200);
  });
});
