import { createPublicKey } from 'node:crypto';
import { createVerifier } from 'fast-jwt';
import { SEEDED_ROLES } from '../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { ADMIN, startTestApp, type TestApp } from '../support/test-app';
import { decodeJwt } from '../support/tokens';

describe('POST /v1/auth/signin', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp();
    const token = await app.signIn();
    // A pending invitee: known e-mail, no credentials yet.
    await app.request('POST', '/v1/users/invite', { token, json: { email: 'pending@example.com', name: 'Pending Person' } });
  });
  afterAll(async () => app.close());

  it('returns the contract’s sign-in result, with no _id in the role', async () => {
    const response = await app.request('POST', '/v1/auth/signin', { json: { username: 'admin', password: ADMIN.password } });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    // The contract's five fields, plus the refresh token (#10).
    expect(Object.keys(response.body).sort()).toEqual(['accessToken', 'email', 'name', 'refreshToken', 'role', 'username']);
    expect(response.body).toMatchObject({
      name: ADMIN.name,
      username: ADMIN.username,
      email: ADMIN.email,
      role: { name: 'admin' },
    });
    expect([...response.body.role.permissions].sort()).toEqual(
      ['audit:read', 'permissions:read', 'roles:read', 'roles:write', 'service-accounts:read', 'service-accounts:write', 'tokens:introspect', 'users:deactivate', 'users:delete', 'users:invite', 'users:read', 'users:update'],
    );
    expect(response.body.role).not.toHaveProperty('_id');
    expect(JSON.stringify(response.body)).not.toMatch(/argon2|password/i);
  });

  it('accepts the username in any case', async () => {
    const response = await app.request('POST', '/v1/auth/signin', { json: { username: 'ADMIN', password: ADMIN.password } });
    expect(response.status).toBe(200);
  });

  it('answers a username with spaces after it as an unknown name, on every database (MariaDB and MySQL pad their keys)', async () => {
    // Else each spacing of a name would have a lockout counter of its own, all of them trying the account's password.
    for (const username of ['admin ', `ADMIN${' '.repeat(100)}`]) {
      const response = await app.request('POST', '/v1/auth/signin', { json: { username, password: ADMIN.password } });
      expect([username.length, response.status, response.body.code]).toEqual([username.length, 401, 'INVALID_CREDENTIALS']);
    }
  });

  it('issues an ES256 token (the embedded default key) with kid, iss, aud, sub, iat and exp that verifies with the JWKS key', async () => {
    const token = await app.signIn();
    const { header, payload } = decodeJwt(token);
    expect(header).toMatchObject({ alg: 'ES256', typ: 'JWT' });
    expect(typeof header.kid).toBe('string');
    expect(payload).toMatchObject({ iss: app.api.container.cradle.config.jwt.issuer, aud: 'access-control' });
    expect(Number(payload.exp) - Number(payload.iat)).toBe(15 * 60);

    const jwks = await app.request('GET', '/.well-known/jwks.json');
    expect(jwks.status).toBe(200);
    const key = jwks.body.keys.find((k: { kid: string }) => k.kid === header.kid);
    expect(key).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect(Object.keys(key).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']);
    expect(key).not.toHaveProperty('d');
    const pem = createPublicKey({ key, format: 'jwk' }).export({ format: 'pem', type: 'spki' }).toString();
    const claims = createVerifier({ key: pem, algorithms: ['ES256'] })(token);
    const users = await app.request('GET', '/v1/users', { token });
    const admin = users.body.users.find((u: { username?: string }) => u.username === 'admin');
    expect(claims.sub).toBe(admin._id);
    expect(admin.role._id).toBe(SEEDED_ROLES.admin);
  });

  describe('failures', () => {
    const attempt = (username: string, password: string) =>
      app.request('POST', '/v1/auth/signin', { json: { username, password } });

    it('answers unknown user, wrong password and pending user with one identical 401', async () => {
      const unknown = await attempt('nobody-here', 'whatever-password');
      const wrong = await attempt('admin', 'not-the-password');
      const pending = await attempt('pending@example.com', 'whatever-password');
      for (const response of [unknown, wrong, pending]) {
        expect(response.status).toBe(401);
        expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      }
      expect(wrong.text).toBe(unknown.text);
      expect(pending.text).toBe(unknown.text);
      expect(unknown.body).toEqual({
        type: 'urn:problem:access-control:invalid-credentials',
        title: 'Invalid credentials',
        status: 401,
        detail: 'Invalid username or password',
        code: 'INVALID_CREDENTIALS',
      });
    });

    it('refuses a password beyond 128 characters as invalid input', async () => {
      const response = await attempt('admin', 'x'.repeat(129));
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('VALIDATION_FAILED');
      expect(response.body.errors).toEqual([expect.objectContaining({ field: 'password' })]);
    });

    it('names every offending field, each once (PRODUCT.md: validation errors list the offending fields)', async () => {
      const response = await app.request('POST', '/v1/auth/signin', { json: {} });
      expect(response.status).toBe(400);
      expect(response.body.errors).toEqual([
        { field: 'username', message: expect.stringContaining('username') },
        { field: 'password', message: expect.stringContaining('password') },
      ]);
      const second = await app.request('POST', '/v1/auth/signin', { json: { username: 'admin' } });
      expect(second.body.errors).toEqual([{ field: 'password', message: expect.stringContaining('password') }]);
      // A field that breaks two rules (type and length here) is named once; an unknown field beside it too.
      const third = await app.request('POST', '/v1/auth/signin', { json: { username: 5, password: 'x'.repeat(129), role: 'admin' } });
      expect(third.body.errors.map((error: { field: string }) => error.field).sort()).toEqual(['password', 'role', 'username']);
    });

    it.each(['constructor', 'toString', 'hasOwnProperty', '__defineGetter__'])('answers a field named %s, which every object inherits, as no field of the request', async (name) => {
      const response = await app.request('POST', '/v1/auth/signin', { json: { username: 5, [name]: 1 } });
      expect(response.status).toBe(400);
      expect(response.body.errors).toEqual(expect.arrayContaining([{ field: name, message: 'is not a field of this request' }, expect.objectContaining({ field: 'username' })]));
    });

    it('refuses fields of the wrong type', async () => {
      const response = await app.request('POST', '/v1/auth/signin', { json: { username: ['admin'], password: 12 } });
      expect(response.status).toBe(400);
    });

    it('answers malformed JSON with 400', async () => {
      const response = await app.request('POST', '/v1/auth/signin', {
        body: '{"username": "admin", ',
        headers: { 'content-type': 'application/json' },
      });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('MALFORMED_JSON');
    });

    it('refuses valid JSON holding a __proto__ or constructor.prototype key: 400 VALIDATION_FAILED naming the key, not MALFORMED_JSON', async () => {
      const cases: [string, string][] = [
        ['{"username":"a","password":"x","__proto__":{"a":1}}', '__proto__'],
        ['{"username":"a","password":"x","constructor":{"prototype":{"a":1}}}', 'constructor.prototype'],
        ['{"username":"a","password":"x","extra":[{"__proto__":null}]}', 'extra.0.__proto__'],
      ];
      for (const [body, field] of cases) {
        const response = await app.request('POST', '/v1/auth/signin', { body, headers: { 'content-type': 'application/json' } });
        expect({ status: response.status, code: response.body.code, errors: response.body.errors }).toEqual({
          status: 400,
          code: 'VALIDATION_FAILED',
          errors: [{ field, message: expect.stringMatching(/^is not accepted/) }],
        });
        expect(response.body.detail).toContain(field);
      }
      expect(Object.prototype).not.toHaveProperty('a');
    });

    it('answers a body that is not JSON with 415', async () => {
      const response = await app.request('POST', '/v1/auth/signin', {
        body: 'username=admin&password=x',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(response.status).toBe(415);
      expect(response.body.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    });

    it('answers a body over the limit with 413', async () => {
      const response = await app.request('POST', '/v1/auth/signin', {
        json: { username: 'admin', password: 'p'.repeat(64 * 1024) },
      });
      expect(response.status).toBe(413);
      expect(response.body.code).toBe('PAYLOAD_TOO_LARGE');
    });

    it('answers a JSON array or null body with 400', async () => {
      for (const body of ['[]', 'null', '"text"']) {
        const response = await app.request('POST', '/v1/auth/signin', { body, headers: { 'content-type': 'application/json' } });
        expect(response.status).toBe(400);
      }
    });
  });
});
