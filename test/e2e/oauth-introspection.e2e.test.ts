import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { asValue } from 'awilix';
import type { Role } from '../../src/domain/roles/role';
import { SEEDED_ROLES } from '../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { AdjustableClock } from '../support/adjustable-clock';
import { startTestApp, type TestApp, type TestResponse } from '../support/test-app';
import { decodeJwt, signJwt } from '../support/tokens';

/**
 * Introspection (RFC 7662) and revocation (RFC 7009) (#21): a service account holding tokens:introspect asks
 * whether a token is valid now, authenticated by its client credentials; anyone holding a token may revoke it.
 * `{active: false}` for anything the API would refuse at this moment, on every replica.
 */
const member: Role = { id: SEEDED_ROLES.member, name: 'member', permissions: [] };
const FORM = 'application/x-www-form-urlencoded';

describe('POST /oauth/introspect and POST /oauth/revoke (#21)', () => {
  let app: TestApp;
  let admin: string;
  const clock = new AdjustableClock();
  let counter = 0;
  let introspector: { clientId: string; secret: string };
  let memberClient: { clientId: string; secret: string };

  const basic = (client: { clientId: string; secret: string }) =>
    `Basic ${Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.secret)}`).toString('base64')}`;
  const post = (path: string, form: Record<string, string> | string, headers: Record<string, string> = {}) =>
    app.request('POST', path, { body: typeof form === 'string' ? form : new URLSearchParams(form).toString(), headers: { 'content-type': FORM, ...headers } });
  const introspect = (token: string, client = introspector) => post('/oauth/introspect', { token }, { authorization: basic(client) });
  const revoke = (token: string, headers: Record<string, string> = {}) => post('/oauth/revoke', { token }, headers);
  const refreshGrant = (refreshToken: string) => post('/oauth/token', { grant_type: 'refresh_token', refresh_token: refreshToken });

  /** A service account whose role holds `permissions`, and its secret. */
  const serviceAccount = async (permissions: string[]) => {
    counter += 1;
    let role = 'member';
    if (permissions.length > 0) {
      role = `introspect${counter}`;
      expect((await app.request('POST', '/v1/roles', { token: admin, json: { name: role, permissions } })).status).toBe(201);
    }
    const created = await app.request('POST', '/v1/service-accounts', { token: admin, json: { name: `checker-${counter}`, role } });
    expect(created.status).toBe(201);
    return { id: created.body._id as string, clientId: created.body.client_id as string, secret: created.body.client_secret as string };
  };
  const person = async () => {
    counter += 1;
    const username = `intro-${counter}`;
    const password = `${username}-long-password`;
    const user = await app.addJoinedUser({ username, password, email: `${username}@example.com`, role: member });
    const signedIn = await app.request('POST', '/v1/auth/signin', { json: { username, password } });
    expect(signedIn.status).toBe(200);
    return { id: user.id, username, password, accessToken: signedIn.body.accessToken as string, refreshToken: signedIn.body.refreshToken as string };
  };
  const expectOAuthError = (response: TestResponse, status: number, error: string) => {
    expect({ status: response.status, error: response.body?.error }).toEqual({ status, error });
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('cache-control')).toBe('no-store');
  };
  const expectInactive = async (token: string) => {
    const response = await introspect(token);
    expect({ status: response.status, body: response.body }).toEqual({ status: 200, body: { active: false } });
  };
  /** Introspection answers every refresh token inactive: whether one still works is the exchange's to say. */
  const expectRefreshRefused = async (refreshToken: string) => expectOAuthError(await refreshGrant(refreshToken), 400, 'invalid_grant');

  beforeAll(async () => {
    app = await startTestApp({}, { clock: asValue(clock) });
    admin = await app.signIn();
    introspector = await serviceAccount(['tokens:introspect']);
    memberClient = await serviceAccount([]);
  });
  afterAll(async () => app.close());

  describe('introspection', () => {
    it('describes a valid user access token: its claims, its user’s username and its role’s permissions now as scope; never cached', async () => {
      const response = await introspect(admin);

      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-store');
      const { payload } = decodeJwt(admin);
      expect(response.body).toEqual({
        active: true,
        sub: payload.sub,
        scope: expect.any(String),
        exp: payload.exp,
        iat: payload.iat,
        iss: payload.iss,
        aud: payload.aud,
        token_type: 'Bearer',
        username: 'admin',
      });
      const me = await app.request('POST', '/v1/auth/signin', { json: { username: 'admin', password: 'admin-password-123' } });
      expect(response.body.scope.split(' ').sort()).toEqual([...me.body.role.permissions].sort());
      expect(response.body.scope.split(' ')).toContain('tokens:introspect');
    });

    it('takes client_secret_post as well as client_secret_basic', async () => {
      const response = await post('/oauth/introspect', { token: admin, client_id: introspector.clientId, client_secret: introspector.secret });
      expect(response.body).toMatchObject({ active: true, username: 'admin' });
    });

    it('answers {active: false} to a valid refresh token, whatever the hint: the API refuses it as a bearer token', async () => {
      const p = await person();
      expect((await app.request('GET', '/v1/me', { token: p.refreshToken })).status).toBe(401);
      for (const token_type_hint of [undefined, 'access_token', 'refresh_token']) {
        const response = await post('/oauth/introspect', { token: p.refreshToken, ...(token_type_hint ? { token_type_hint } : {}) }, { authorization: basic(introspector) });
        expect({ status: response.status, body: response.body }).toEqual({ status: 200, body: { active: false } });
      }
      // Still a live refresh token: the exchange takes it.
      expect((await refreshGrant(p.refreshToken)).status).toBe(200);
    });

    it('answers {active: false} to an unknown, malformed, tampered, foreign-key or expired token', async () => {
      const { header, payload } = decodeJwt(admin);
      const [h, p] = admin.split('.');
      const key = app.api.container.cradle.signingKey.privateKeyPem;
      const now = Math.floor(Date.now() / 1000);
      const foreign = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
      for (const token of [
        'x'.repeat(43),
        'not a token',
        `${h}.${p}.${'A'.repeat(86)}`,
        signJwt(key, { ...payload, sub: randomUUID() }, { kid: header.kid }),
        signJwt(foreign, payload, { kid: header.kid }),
        signJwt(key, { ...payload, iat: now - 3600, exp: now - 60 }, { kid: header.kid }),
        signJwt(key, { ...payload, aud: 'another-service' }, { kid: header.kid }),
      ]) {
        await expectInactive(token);
      }
    });

    it('answers {active: false} after sign-out, and the refresh token is refused', async () => {
      const p = await person();
      expect((await introspect(p.accessToken)).body.active).toBe(true);
      expect((await app.request('POST', '/v1/auth/signout', { token: p.accessToken })).status).toBe(204);
      await expectInactive(p.accessToken);
      await expectRefreshRefused(p.refreshToken);
    });

    it('answers {active: false} after a password change, to every token but the new session’s', async () => {
      const p = await person();
      const changed = await app.request('POST', '/v1/me/password', {
        token: p.accessToken,
        json: { current_password: p.password, new_password: 'an entirely new passphrase' },
      });
      expect(changed.status).toBe(200);
      await expectInactive(p.accessToken);
      await expectRefreshRefused(p.refreshToken);
      expect((await introspect(changed.body.accessToken)).body.active).toBe(true);
    });

    it('answers {active: false} after deactivation and after deletion', async () => {
      const deactivated = await person();
      expect((await app.request('POST', `/v1/users/${deactivated.id}/deactivate`, { token: admin })).status).toBe(200);
      await expectInactive(deactivated.accessToken);
      await expectRefreshRefused(deactivated.refreshToken);

      const deleted = await person();
      expect((await app.request('DELETE', `/v1/users/${deleted.id}`, { token: admin })).status).toBe(204);
      await expectInactive(deleted.accessToken);
      await expectRefreshRefused(deleted.refreshToken);
    });

    it('refuses a caller without client credentials, or with wrong ones: invalid_client, 401 with WWW-Authenticate', async () => {
      const none = await post('/oauth/introspect', { token: admin });
      expectOAuthError(none, 401, 'invalid_client');
      expect(none.headers.get('www-authenticate')).toMatch(/^Basic /);
      const wrong = await introspect(admin, { clientId: introspector.clientId, secret: `${introspector.secret}x` });
      expectOAuthError(wrong, 401, 'invalid_client');
      expect(wrong.headers.get('www-authenticate')).toMatch(/^Basic /);
      expectOAuthError(await introspect(admin, { clientId: randomUUID(), secret: introspector.secret }), 401, 'invalid_client');
      // A user's bearer token is not a client's credentials.
      expectOAuthError(await post('/oauth/introspect', { token: admin }, { authorization: `Bearer ${admin}` }), 401, 'invalid_client');
    });

    it('refuses a service account whose role lacks tokens:introspect: unauthorized_client, 403', async () => {
      const response = await introspect(admin, memberClient);
      expectOAuthError(response, 403, 'unauthorized_client');
    });

    it('refuses a disabled service account at once', async () => {
      const client = await serviceAccount(['tokens:introspect']);
      expect((await introspect(admin, client)).status).toBe(200);
      expect((await app.request('PATCH', `/v1/service-accounts/${client.id}`, { token: admin, json: { disabled: true } })).status).toBe(200);
      expectOAuthError(await introspect(admin, client), 401, 'invalid_client');
    });

    it.each([
      ['no token', {}, 'invalid_request'],
      ['an empty token', { token: '' }, 'invalid_request'],
    ])('answers %s with %s', async (_what, form, error) => {
      expectOAuthError(await post('/oauth/introspect', form as Record<string, string>, { authorization: basic(introspector) }), 400, error);
    });

    it('refuses a token given twice, two client authentications at once, and a JSON body', async () => {
      expectOAuthError(await post('/oauth/introspect', `token=a&token=b`, { authorization: basic(introspector) }), 400, 'invalid_request');
      expectOAuthError(
        await post('/oauth/introspect', { token: admin, client_id: introspector.clientId, client_secret: introspector.secret }, { authorization: basic(introspector) }),
        400,
        'invalid_request',
      );
      const json = await app.request('POST', '/oauth/introspect', { json: { token: admin }, headers: { authorization: basic(introspector) } });
      expectOAuthError(json, 400, 'invalid_request');
    });
  });

  describe('revocation', () => {
    it('revokes a refresh token’s whole family, without client authentication: the refresh grant fails', async () => {
      const p = await person();
      const next = await refreshGrant(p.refreshToken);
      expect(next.status).toBe(200);

      const response = await revoke(next.body.refresh_token);

      expect(response.status).toBe(200);
      expect(response.text).toBe('');
      expect(response.headers.get('cache-control')).toBe('no-store');
      expectOAuthError(await refreshGrant(next.body.refresh_token), 400, 'invalid_grant');
      expect((await app.request('POST', '/v1/auth/refresh', { json: { refreshToken: next.body.refresh_token } })).status).toBe(401);
      // Other sign-ins of the user are untouched; the family's access token lives out its lifetime.
      const other = await app.request('POST', '/v1/auth/signin', { json: { username: p.username, password: p.password } });
      expect((await refreshGrant(other.body.refreshToken)).status).toBe(200);
      expect((await introspect(next.body.access_token)).body.active).toBe(true);
    });

    it('takes a service account’s credentials too, and refuses wrong ones with invalid_client', async () => {
      const p = await person();
      expectOAuthError(await revoke(p.refreshToken, { authorization: basic({ ...memberClient, secret: 'wrong' }) }), 401, 'invalid_client');
      const next = await refreshGrant(p.refreshToken);
      expect(next.status).toBe(200);
      expect((await revoke(next.body.refresh_token, { authorization: basic(memberClient) })).status).toBe(200);
      await expectRefreshRefused(next.body.refresh_token);
      const q = await person();
      expect((await post('/oauth/revoke', { token: q.refreshToken, token_type_hint: 'access_token', client_id: memberClient.clientId, client_secret: memberClient.secret })).status).toBe(200);
      await expectRefreshRefused(q.refreshToken);
    });

    it('answers 200 to an unknown, malformed, expired or already revoked token (RFC 7009 §2.2)', async () => {
      const p = await person();
      expect((await revoke(p.refreshToken)).status).toBe(200);
      for (const token of [p.refreshToken, 'x'.repeat(43), 'not a token', 'a.b.c']) {
        const response = await revoke(token, {});
        expect({ status: response.status, text: response.text }).toEqual({ status: 200, text: '' });
      }
    });

    it('signs the user out by an access token valid now, and ends nothing by one no longer valid', async () => {
      const p = await person();
      expect((await revoke(p.accessToken, {})).status).toBe(200);
      expect((await app.request('GET', '/v1/me', { token: p.accessToken })).status).toBe(401);
      await expectRefreshRefused(p.refreshToken);

      // The old token again, after a new sign-in: the new session stays.
      const again = await app.request('POST', '/v1/auth/signin', { json: { username: p.username, password: p.password } });
      expect((await revoke(p.accessToken, {})).status).toBe(200);
      expect((await app.request('GET', '/v1/me', { token: again.body.accessToken })).status).toBe(200);
    });

    it('refuses odd client credentials as invalid_client, never a 500', async () => {
      for (const form of ['token=%00&client_id=%C2%80&client_secret=s', `token=x&client_id=${'é'.repeat(60)}&client_secret=y`, 'token=x&client_id=%00&client_secret=%00']) {
        expectOAuthError(await post('/oauth/revoke', form), 401, 'invalid_client');
        expectOAuthError(await post('/oauth/introspect', form), 401, 'invalid_client');
      }
    });

    it('answers invalid_request to a request without a token', async () => {
      expectOAuthError(await post('/oauth/revoke', {}), 400, 'invalid_request');
      expectOAuthError(await post('/oauth/revoke', 'token=a&token=b'), 400, 'invalid_request');
    });
  });

  it('answers a body over BODY_LIMIT with 413 invalid_request, in OAuth’s error JSON', async () => {
    for (const path of ['/oauth/introspect', '/oauth/revoke']) {
      expectOAuthError(await post(path, { token: 'x'.repeat(20_000) }, { authorization: basic(introspector) }), 413, 'invalid_request');
    }
  });

  it('answers another method with 405 and Allow, in OAuth’s error JSON', async () => {
    for (const [path, allow] of [['/oauth/introspect', 'POST'], ['/oauth/revoke', 'OPTIONS, POST']]) {
      const response = await app.request('PUT', path!, { body: 'token=x', headers: { 'content-type': FORM } });
      expectOAuthError(response, 405, 'invalid_request');
      expect(response.headers.get('allow')).toBe(allow);
      expect(response.headers.get('pragma')).toBe('no-cache');
    }
  });

  it('is published in discovery with the client authentication methods each takes', async () => {
    const metadata = (await app.request('GET', '/.well-known/openid-configuration')).body;
    expect(metadata).toMatchObject({
      revocation_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post', 'private_key_jwt'],
      introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'private_key_jwt'],
    });
    expect(metadata.revocation_endpoint).toBe(metadata.token_endpoint.replace(/token$/, 'revoke'));
    expect(metadata.introspection_endpoint).toBe(metadata.token_endpoint.replace(/token$/, 'introspect'));
  });
});

describe('introspection across replicas (#21)', () => {
  it('sees a revocation and a sign-out made on another replica at once', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const keys = {
      JWT_PRIVATE_KEY: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
      JWT_PUBLIC_KEY: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
      // The cache a deployment may turn on for bearer authentication: introspection must not be behind it.
      ACTOR_CACHE_TTL: '60s',
    };
    const first = await startTestApp(keys);
    const second = await startTestApp(keys, {}, first.database);
    try {
      const admin = await first.signIn();
      expect((await first.request('POST', '/v1/roles', { token: admin, json: { name: 'introspector', permissions: ['tokens:introspect'] } })).status).toBe(201);
      const created = await first.request('POST', '/v1/service-accounts', { token: admin, json: { name: 'checker', role: 'introspector' } });
      const authorization = `Basic ${Buffer.from(`${created.body.client_id}:${created.body.client_secret}`).toString('base64')}`;
      const introspectOn = (app: TestApp, token: string) =>
        app.request('POST', '/oauth/introspect', { body: new URLSearchParams({ token }).toString(), headers: { 'content-type': FORM, authorization } });

      const signedIn = await first.request('POST', '/v1/auth/signin', { json: { username: 'admin', password: 'admin-password-123' } });
      // The second replica has just answered for the token (and could have cached its user).
      expect((await introspectOn(second, signedIn.body.accessToken)).body.active).toBe(true);
      expect((await second.request('GET', '/v1/me', { token: signedIn.body.accessToken })).status).toBe(200);

      const revoked = await first.request('POST', '/oauth/revoke', { body: new URLSearchParams({ token: signedIn.body.refreshToken }).toString(), headers: { 'content-type': FORM } });
      expect(revoked.status).toBe(200);
      const refreshed = await second.request('POST', '/oauth/token', { body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: signedIn.body.refreshToken }).toString(), headers: { 'content-type': FORM } });
      expect({ status: refreshed.status, error: refreshed.body.error }).toEqual({ status: 400, error: 'invalid_grant' });

      expect((await first.request('POST', '/v1/auth/signout', { token: signedIn.body.accessToken })).status).toBe(204);
      expect((await introspectOn(second, signedIn.body.accessToken)).body).toEqual({ active: false });
    } finally {
      await second.api.close();
      await first.close();
    }
  });
});
