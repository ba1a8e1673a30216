import { generateKeyPairSync, randomUUID } from 'node:crypto';
import http from 'node:http';
import { createSigner } from 'fast-jwt';
import { SEEDED_ROLES } from '../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { startTestApp, type TestApp } from '../support/test-app';
import { decodeJwt, signJwt, unsigned } from '../support/tokens';

/** Every route that needs a bearer token, with a valid request for it. */
const PROTECTED: [string, string, unknown][] = [
  ['GET', '/v1/users', undefined],
  ['POST', '/v1/users/invite', { email: 'token-test@example.com' }],
  ['GET', '/v1/permissions', undefined],
  ['POST', '/v1/auth/signout', undefined],
  ['POST', '/v1/users/01a1fc99-dead-7000-8000-000000000001/invitation/resend', undefined],
  ['DELETE', '/v1/users/01a1fc99-dead-7000-8000-000000000001/invitation', undefined],
  ['GET', '/v1/users/01a1fc99-dead-7000-8000-000000000001', undefined],
  ['PATCH', '/v1/users/01a1fc99-dead-7000-8000-000000000001', { role: 'admin' }],
  ['POST', '/v1/users/01a1fc99-dead-7000-8000-000000000001/deactivate', undefined],
  ['POST', '/v1/users/01a1fc99-dead-7000-8000-000000000001/reactivate', undefined],
  ['DELETE', '/v1/users/01a1fc99-dead-7000-8000-000000000001', undefined],
  ['GET', '/v1/roles', undefined],
  ['GET', `/v1/roles/${SEEDED_ROLES.member}`, undefined],
  ['POST', '/v1/roles', { name: 'forged-role', permissions: ['users:read'] }],
  ['PATCH', `/v1/roles/${SEEDED_ROLES.member}`, { permissions: ['users:read'] }],
  ['DELETE', '/v1/roles/01a1fc99-dead-7000-8000-000000000002', undefined],
  ['GET', '/v1/service-accounts', undefined],
  ['POST', '/v1/service-accounts', { name: 'forged-sa', role: 'admin' }],
  ['GET', '/v1/service-accounts/01a1fc99-dead-7000-8000-000000000003', undefined],
  ['PATCH', '/v1/service-accounts/01a1fc99-dead-7000-8000-000000000003', { role: 'admin' }],
  ['DELETE', '/v1/service-accounts/01a1fc99-dead-7000-8000-000000000003', undefined],
  ['GET', '/v1/service-accounts/01a1fc99-dead-7000-8000-000000000003/secrets', undefined],
  ['POST', '/v1/service-accounts/01a1fc99-dead-7000-8000-000000000003/secrets', {}],
  ['DELETE', '/v1/service-accounts/01a1fc99-dead-7000-8000-000000000003/secrets/01a1fc99-dead-7000-8000-000000000003', undefined],
  ['PUT', '/v1/service-accounts/01a1fc99-dead-7000-8000-000000000003/keys', { keys: [] }],
  ['GET', '/v1/me', undefined],
  ['POST', '/v1/me/password', { current_password: 'admin-password-123', new_password: 'a forged new passphrase' }],
  ['POST', '/v1/resources', {}],
];

/** RFC 6750 §3.1: the bare challenge to a request without authentication, `error="invalid_token"` to a token refused. */
const CHALLENGE = 'Bearer realm="access-control"';
const INVALID_TOKEN = `${CHALLENGE}, error="invalid_token"`;

const ADMIN_ROLE = { id: SEEDED_ROLES.admin, name: 'admin', permissions: ['users:read', 'users:invite', 'permissions:read'] };

describe('bearer authentication', () => {
  let app: TestApp;
  let token: string;
  let claims: Record<string, unknown>;
  let kid: string;
  let ownKeyPem: string;
  let signedOutToken: string;
  let deletedUsersToken: string;
  /** The claims of a genuine service token (#21), of an account holding admin. */
  let serviceClaims: Record<string, unknown>;

  beforeAll(async () => {
    app = await startTestApp();
    token = await app.signIn();
    ({ payload: claims } = decodeJwt(token));
    kid = String(decodeJwt(token).header.kid);
    ownKeyPem = app.api.container.cradle.signingKey.privateKeyPem;

    await app.addJoinedUser({ username: 'gone.out', password: 'gone-out-password', email: 'out@example.com', role: ADMIN_ROLE });
    signedOutToken = await app.signIn('gone.out', 'gone-out-password');
    expect((await app.request('POST', '/v1/auth/signout', { token: signedOutToken })).status).toBe(204);
    const deleted = await app.addJoinedUser({ username: 'deleted', password: 'deleted-password', email: 'deleted@example.com', role: ADMIN_ROLE });
    deletedUsersToken = await app.signIn('deleted', 'deleted-password');
    const { userRepository } = app.api.container.cradle;
    const erased = (await userRepository.findById(deleted.id))!;
    erased.delete({ by: deleted.id, now: new Date(), newId: () => randomUUID() });
    await userRepository.erase(erased);
    const account = await app.request('POST', '/v1/service-accounts', { token, json: { name: 'forgery-target', role: 'admin' } });
    const issued = await app.request('POST', '/oauth/token', {
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: account.body.client_id, client_secret: account.body.client_secret }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect((await app.request('GET', '/v1/users', { token: issued.body.access_token })).status).toBe(200);
    serviceClaims = decodeJwt(issued.body.access_token).payload;
  });
  afterAll(async () => app.close());

  const now = () => Math.floor(Date.now() / 1000);
  const privatePem = (pair: { privateKey: { export(o: object): string | Buffer } }) => pair.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  /** Another key of the type ours is (the embedded default: ES256), and keys of the other two types. */
  const otherKeyPem = () => privatePem(generateKeyPairSync('ec', { namedCurve: 'P-256' }));
  const otherEd25519Pem = () => privatePem(generateKeyPairSync('ed25519'));
  const otherRsaPem = () => privatePem(generateKeyPairSync('rsa', { modulusLength: 2048 }));

  const forgeries: Record<string, () => string> = {
    'no token at all': () => '',
    'a malformed token': () => 'not-a-jwt',
    'two segments': () => token.split('.').slice(0, 2).join('.'),
    'a stripped signature': () => `${token.split('.').slice(0, 2).join('.')}.`,
    'a tampered payload': () => {
      const [h, , s] = token.split('.');
      return `${h}.${Buffer.from(JSON.stringify({ ...claims, sub: 'someone-else' })).toString('base64url')}.${s}`;
    },
    'a signature from another key': () => signJwt(otherKeyPem(), claims, { kid }),
    'alg none': () => unsigned(claims),
    'HS256 signed with the public key': () =>
      createSigner({ key: app.api.container.cradle.signingKey.publicKeyPem, algorithm: 'HS256', noTimestamp: true })(claims),
    'an expired token': () => signJwt(ownKeyPem, { ...claims, iat: now() - 3600, exp: now() - 60 }, { kid }),
    'a wrong issuer': () => signJwt(ownKeyPem, { ...claims, iss: 'https://evil.example' }, { kid }),
    'a wrong audience': () => signJwt(ownKeyPem, { ...claims, aud: 'another-service' }, { kid }),
    'no exp': () => signJwt(ownKeyPem, { ...claims, exp: undefined }, { kid }),
    'no sub': () => signJwt(ownKeyPem, { ...claims, sub: undefined }, { kid }),
    'no iat': () => signJwt(ownKeyPem, { ...claims, iat: undefined }, { kid }),
    'a subject that is no user': () => signJwt(ownKeyPem, { ...claims, sub: '01a1fc99-dead-7000-8000-000000000000' }, { kid }),
    'a non-string subject': () => signJwt(ownKeyPem, { ...claims, sub: 42 }, { kid }),
    'not valid before a future nbf': () => signJwt(ownKeyPem, { ...claims, nbf: now() + 3600 }, { kid }),
    'an unknown kid': () => signJwt(ownKeyPem, claims, { kid: 'no-such-key' }),
    'no kid': () => signJwt(ownKeyPem, claims),
    'a kid injection': () => signJwt(ownKeyPem, claims, { kid: "../../../dev/null' OR '1'='1" }),
    'a jku header': () => signJwt(ownKeyPem, claims, { kid, jku: 'https://evil.example/jwks.json' }),
    'an embedded jwk header': () => {
      const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      return signJwt(privatePem(pair), claims, { kid, jwk: pair.publicKey.export({ format: 'jwk' }) });
    },
    'an x5u header': () => signJwt(ownKeyPem, claims, { kid, x5u: 'https://evil.example/cert.pem' }),
    'an x5c header': () => signJwt(ownKeyPem, claims, { kid, x5c: ['MIIB'] }),
    'a crit header': () => signJwt(ownKeyPem, claims, { kid, crit: ['exp'], exp: now() + 60 }),
    'no token version (ver)': () => signJwt(ownKeyPem, { ...claims, ver: undefined }, { kid }),
    'an older token version': () => signJwt(ownKeyPem, { ...claims, ver: -1 }, { kid }),
    'a newer token version': () => signJwt(ownKeyPem, { ...claims, ver: 1 }, { kid }),
    'a non-integer token version': () => signJwt(ownKeyPem, { ...claims, ver: '0' }, { kid }),
    'a signed-out token': () => signedOutToken,
    'a token of a deleted user': () => deletedUsersToken,
    'alg none with a kid': () => `${Buffer.from(JSON.stringify({ alg: 'none', kid })).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`,
    'alg EdDSA under our ES256 kid (an Ed25519 signature)': () => signJwt(otherEd25519Pem(), claims, { kid }),
    'alg RS256 under our ES256 kid (an RSA signature)': () => signJwt(otherRsaPem(), claims, { kid }),
    'alg ES384 in the header over our own ES256 signature': () => signJwt(ownKeyPem, claims, { kid, alg: 'ES384' }),
    'a header that is not JSON': () => `bm90IGpzb24.${token.split('.')[1]}.${token.split('.')[2]}`,
    // A user's token is never taken for a service account's, nor the reverse (#21).
    "a user's token with a client_id": () => signJwt(ownKeyPem, { ...claims, client_id: serviceClaims.client_id, scope: 'users:read' }, { kid }),
    "a user's token with a scope": () => signJwt(ownKeyPem, { ...claims, scope: 'users:read' }, { kid }),
    'a service token naming a user as its subject': () => signJwt(ownKeyPem, { ...serviceClaims, sub: claims.sub }, { kid }),
    "a service token naming the account's id with a user's ver": () => signJwt(ownKeyPem, { ...serviceClaims, ver: 0 }, { kid }),
    'a service token of another client id': () => signJwt(ownKeyPem, { ...serviceClaims, client_id: 'another-client' }, { kid }),
    'a service token with a non-string scope': () => signJwt(ownKeyPem, { ...serviceClaims, scope: ['users:read'] }, { kid }),
    'a service token with an empty client id': () => signJwt(ownKeyPem, { ...serviceClaims, client_id: '' }, { kid }),
  };

  it('accepts the control: a token forged with our own key and the genuine claims (the helper works)', async () => {
    const genuine = signJwt(ownKeyPem, claims, { kid });
    expect((await app.request('GET', '/v1/users', { token: genuine })).status).toBe(200);
  });

  it(`has at least 20 kinds of forgery (${Object.keys(forgeries).length})`, () => {
    expect(Object.keys(forgeries).length).toBeGreaterThanOrEqual(20);
  });

  describe.each(PROTECTED)('%s %s', (method, path, json) => {
    it.each(Object.keys(forgeries))('answers 401 to %s', async (name) => {
      const forged = forgeries[name]();
      const response = await app.request(method, path, { json, headers: forged ? { authorization: `Bearer ${forged}` } : {} });
      expect(response.status).toBe(401);
      expect(response.body.code).toBe('UNAUTHENTICATED');
      expect(response.headers.get('www-authenticate')).toBe(forged ? INVALID_TOKEN : CHALLENGE);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    });

    it.each([
      ['Basic YWRtaW46YWRtaW4=', CHALLENGE],
      ['token-without-scheme', CHALLENGE],
      // The scheme with no token presents none: answered as no authentication, without an error code (RFC 6750 §3.1).
      ['Bearer', CHALLENGE],
      ['Bearer  ', CHALLENGE],
      ['bearer not-a-jwt', INVALID_TOKEN],
    ])('answers 401 to the header "%s", challenging with %s', async (header, challenge) => {
      const response = await app.request(method, path, { json, headers: { authorization: header } });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe(challenge);
    });
  });

  it('refuses two Authorization headers with 400, the API and the token endpoint alike (Node would keep the first)', async () => {
    /** A request whose head carries each of `authorizations` as a header of its own. */
    const raw = (method: string, path: string, authorizations: string[], body?: string) =>
      new Promise<{ status: number; body: Record<string, unknown>; challenge: string | undefined }>((resolve, reject) => {
        // A raw list: Node adds no Host of its own then.
        const headers = ['Host', new URL(app.url).host, ...authorizations.flatMap((value) => ['Authorization', value])];
        if (body !== undefined) headers.push('Content-Type', 'application/x-www-form-urlencoded', 'Content-Length', String(Buffer.byteLength(body)));
        const request = http.request(`${app.url}${path}`, { method, headers }, (response) => {
          let text = '';
          response.on('data', (chunk: Buffer) => (text += chunk.toString()));
          response.on('end', () => resolve({ status: response.statusCode!, body: JSON.parse(text) as Record<string, unknown>, challenge: response.headers['www-authenticate'] }));
        });
        request.on('error', reject);
        request.end(body);
      });
    expect((await raw('GET', '/v1/me', [`Bearer ${token}`])).status).toBe(200);
    const twice = await raw('GET', '/v1/me', [`Bearer ${token}`, `Bearer ${token}`]);
    expect([twice.status, twice.body.code, twice.body.errors]).toEqual([400, 'VALIDATION_FAILED', [{ field: 'authorization', message: 'is given more than once' }]]);
    // RFC 6750 §3.1: a request that is malformed this way is invalid_request, said in the challenge too.
    expect(twice.challenge).toBe('Bearer realm="access-control", error="invalid_request"');
    const form = 'grant_type=client_credentials';
    const basic = `Basic ${Buffer.from('a:b').toString('base64')}`;
    const oauth = await raw('POST', '/oauth/token', [basic, basic], form);
    expect(oauth).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    // Client authentication, not a bearer token: no Bearer challenge there.
    expect(oauth.challenge).toBeUndefined();
  });

  it('refuses a token in the query beside the header: 400, challenged with error="invalid_request" (RFC 6750 §3.1)', async () => {
    for (const path of [`/v1/me?access_token=${token}`, `/v1/users?access_token=${token}`]) {
      const both = await app.request('GET', path, { token });
      expect([path, both.status, both.body.code, both.body.errors]).toEqual([path, 400, 'VALIDATION_FAILED', [{ field: 'access_token', message: expect.stringContaining('Authorization header only') }]]);
      expect(both.headers.get('www-authenticate')).toBe('Bearer realm="access-control", error="invalid_request"');
    }
  });

  it('refuses a token once it expires, though it was accepted (and remembered as verified) before', async () => {
    const shortLived = signJwt(ownKeyPem, { ...claims, iat: now(), exp: now() + 2 }, { kid });
    expect((await app.request('GET', '/v1/users', { token: shortLived })).status).toBe(200);
    expect((await app.request('GET', '/v1/users', { token: shortLived })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, (decodeJwt(shortLived).payload.exp as number) * 1000 - Date.now() + 50));
    expect((await app.request('GET', '/v1/users', { token: shortLived })).status).toBe(401);
  });

  it('refuses a remembered token at once when its user signs out', async () => {
    await app.addJoinedUser({ username: 'twice.in', password: 'twice-in-password', email: 'twice@example.com', role: ADMIN_ROLE });
    const own = await app.signIn('twice.in', 'twice-in-password');
    expect((await app.request('GET', '/v1/users', { token: own })).status).toBe(200);
    expect((await app.request('POST', '/v1/auth/signout', { token: own })).status).toBe(204);
    expect((await app.request('GET', '/v1/users', { token: own })).status).toBe(401);
  });

  it('authenticates before the body is read: an invalid body without a token is 401, not 400', async () => {
    const response = await app.request('POST', '/v1/users/invite', { json: { email: 42 } });
    expect(response.status).toBe(401);
  });

  it('accepts the scheme in any case', async () => {
    const response = await app.request('GET', '/v1/users', { headers: { authorization: `bearer ${token}` } });
    expect(response.status).toBe(200);
  });

  it('answers an unknown /v1 path with 401 without a token and 404 with one; a known path with another method 405', async () => {
    expect((await app.request('POST', '/v1/resources', { json: {} })).status).toBe(401);
    const found = await app.request('POST', '/v1/resources', { json: {}, token });
    expect(found.status).toBe(404);
    expect(found.body.code).toBe('NOT_FOUND');
    expect((await app.request('GET', '/v1/nothing/here', { token })).status).toBe(404);
    // The path exists (the OpenAPI document says so publicly): the wrong method is said at once, token or not.
    const wrongMethod = await app.request('DELETE', '/v1/users', {});
    expect([wrongMethod.status, wrongMethod.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
  });

  it('needs no token for sign-in', async () => {
    const response = await app.request('POST', '/v1/auth/signin', { json: { username: 'x', password: 'y' } });
    expect(response.status).toBe(401);
    expect(response.body.code).toBe('INVALID_CREDENTIALS');
  });
});
