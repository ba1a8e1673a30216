import { generateKeyPairSync, type KeyObject, randomBytes } from 'node:crypto';
import { type ApiProcess, ensureBuilt, startApiProcess } from '../support/api-process';
import { freePort } from '../support/free-port';
import {
  ensureGoOidcVerifier,
  clientCredentialsWithGo,
  clientCredentialsWithOpenIdClient,
  clientCredentialsWithSpring,
  ensureGoClientCredentials,
  ensureSpringClientCredentials,
  ensureSpringResourceServer,
  manageTokensWithOpenIdClient,
  refreshWithOpenIdClient,
  type RunningServer,
  startExpressResourceServer,
  startSpringResourceServer,
  type Verdict,
  verifyWithGoOidc,
} from '../support/oauth-clients';
import { decodeJwt, signJwt, unsigned } from '../support/tokens';

/**
 * Issue #21: client stacks nobody here wrote, each in its own process against the built api, given only
 * the issuer URL (and the audience), find the keys and the token endpoint by discovery: openid-client
 * refreshes a user's token through the discovered token endpoint, and introspects and revokes tokens at the discovered
 * endpoints with a service account's secret (#21); openid-client, Go's x/oauth2 clientcredentials and a Spring Boot
 * OAuth2 client obtain a service account's token by the client credentials grant and call GET /v1/users with it (#21);
 * express-oauth2-jwt-bearer, go-oidc and a
 * Spring Boot resource server with only issuer-uri accept a user's token (of the current ES256 key, and of
 * a retired RS256 one) and refuse forged, expired and misdirected ones.
 */
jest.setTimeout(900_000);

const AUDIENCE = 'access-control';
/** Another service that trusts this issuer (RESOURCE_SERVERS): a service account asks for tokens of its audience (RFC 8707). */
const ORDERS = 'https://orders.example.com';
const pem = (key: KeyObject) => key.export({ format: 'pem', type: key.type === 'private' ? 'pkcs8' : 'spki' }).toString();
// A service account's token (client credentials) is accepted as a user's is: same keys, iss and aud.
const ACCEPTED = ['valid', 'retired-RS256', 'service'];
// 'orders-service': a service account's token for the orders service (`resource`), which no verifier of this
// service's audience may take.
const REFUSED = ['tampered', 'foreign-key', 'expired', 'wrong-issuer', 'wrong-audience', 'alg-none', 'orders-service'];

describe('OAuth client stacks, given only the issuer URL (#21)', () => {
  let api: ApiProcess;
  let issuer: string;
  let password: string;
  let tokens: Record<string, string>;
  let subject: string;
  /** The `sub` a resource server must report for each accepted token: the user's, or the service account's. */
  let subjects: Record<string, string>;

  const signIn = async () => {
    const response = await fetch(`${issuer}/v1/auth/signin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'clients.admin', password }),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as { accessToken: string; refreshToken: string };
  };

  beforeAll(async () => {
    ensureBuilt();
    const current = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const retired = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const port = await freePort();
    issuer = `http://127.0.0.1:${port}`;
    password = randomBytes(18).toString('base64url');
    // PUBLIC_URL alone: the issuer (iss) and the endpoints' base, as on a deployment.
    api = await startApiProcess(
      'oauth-clients',
      {
        PUBLIC_URL: issuer,
        JWT_PRIVATE_KEY: pem(current.privateKey),
        JWT_PUBLIC_KEY: pem(current.publicKey),
        JWT_PREVIOUS_PUBLIC_KEYS: pem(retired.publicKey),
        JWT_AUDIENCE: AUDIENCE,
        ADMIN_USERNAME: 'clients.admin',
        ADMIN_EMAIL: 'clients.admin@example.com',
        ADMIN_PASSWORD: password,
        ADDRESS_RATE_LIMIT: '0',
        RESOURCE_SERVERS: ORDERS,
      },
      { port },
    );
    const valid = (await signIn()).accessToken;
    const { header, payload } = decodeJwt(valid);
    subject = payload.sub as string;
    const jwks = (await (await fetch(`${issuer}/.well-known/jwks.json`)).json()) as { keys: { kid: string; alg: string }[] };
    const retiredKid = jwks.keys.find((key) => key.alg === 'RS256')!.kid;
    const own = pem(current.privateKey);
    const now = Math.floor(Date.now() / 1000);
    const [h, , s] = valid.split('.');
    tokens = {
      valid,
      'retired-RS256': signJwt(pem(retired.privateKey), payload, { kid: retiredKid }),
      tampered: `${h}.${Buffer.from(JSON.stringify({ ...payload, sub: 'someone-else' })).toString('base64url')}.${s}`,
      'foreign-key': signJwt(pem(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey), payload, { kid: header.kid }),
      // Expired ten minutes ago: beyond every stack's clock skew (Spring's is 60 s).
      expired: signJwt(own, { ...payload, iat: now - 3600, exp: now - 600 }, { kid: header.kid }),
      'wrong-issuer': signJwt(own, { ...payload, iss: 'https://evil.example' }, { kid: header.kid }),
      'wrong-audience': signJwt(own, { ...payload, aud: 'another-service' }, { kid: header.kid }),
      'alg-none': unsigned(payload),
    };
    // A service account's token, from the token endpoint discovery publishes.
    const created = await fetch(`${issuer}/v1/service-accounts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${valid}` },
      body: JSON.stringify({ name: 'clients-reports', role: 'member' }),
    });
    expect(created.status).toBe(201);
    const account = (await created.json()) as { _id: string; client_id: string; client_secret: string };
    const grant = async (body: string) => {
      const granted = await fetch(`${issuer}/oauth/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${account.client_id}:${account.client_secret}`).toString('base64')}`,
        },
        body,
      });
      expect(granted.status).toBe(200);
      return ((await granted.json()) as { access_token: string }).access_token;
    };
    tokens.service = await grant('grant_type=client_credentials');
    tokens['orders-service'] = await grant(`grant_type=client_credentials&resource=${encodeURIComponent(ORDERS)}`);
    subjects = Object.fromEntries(Object.keys(tokens).map((label) => [label, label.endsWith('service') ? account._id : subject]));
  });
  afterAll(async () => {
    if (!api) return;
    api.child.kill('SIGTERM');
    await api.exited;
  });

  /** What a resource server answered each token with: accepted when 200 and it names the user. */
  const callEach = async (server: RunningServer, name: string): Promise<Verdict[]> => {
    const verdicts: Verdict[] = [];
    for (const [label, token] of Object.entries(tokens)) {
      const response = await fetch(`${server.url}/whoami`, { headers: { authorization: `Bearer ${token}` } });
      const body = response.status === 200 ? ((await response.json()) as { sub?: string }) : undefined;
      verdicts.push({ verifier: name, token: label, accepted: response.status === 200 && body?.sub === subjects[label], error: response.status === 200 ? undefined : String(response.status) });
    }
    return verdicts;
  };
  const accepted = (verdicts: Verdict[], verifier: string) => verdicts.filter((v) => v.verifier === verifier && v.accepted).map((v) => v.token).sort();

  it('openid-client: discovery() from the issuer, then refreshTokenGrant at the discovered token endpoint (OIDC and RFC 8414 discovery)', async () => {
    const first = await signIn();

    const viaOidc = await refreshWithOpenIdClient(issuer, 'a-public-client', 'oidc', first.refreshToken);
    expect(viaOidc).toMatchObject({ issuer, token_endpoint: `${issuer}/oauth/token`, token_type: 'bearer', expires_in: expect.any(Number) });
    const me = await fetch(`${issuer}/v1/me`, { headers: { authorization: `Bearer ${viaOidc.access_token as string}` } });
    expect(me.status).toBe(200);

    const viaOAuth = await refreshWithOpenIdClient(issuer, 'a-public-client', 'oauth2', viaOidc.refresh_token as string);
    expect(viaOAuth).toMatchObject({ issuer, access_token: expect.any(String), refresh_token: expect.any(String) });

    // A used refresh token: the library reads our refusal as the OAuth error it is.
    const reused = await refreshWithOpenIdClient(issuer, 'a-public-client', 'oidc', first.refreshToken);
    expect(reused).toMatchObject({ oauthError: 'invalid_grant' });
  });

  it('openid-client: tokenIntrospection and tokenRevocation at the discovered endpoints, with a service account’s secret and as a public client', async () => {
    const admin = (await signIn()).accessToken;
    const asAdmin = (url: string, json: unknown) =>
      fetch(`${issuer}${url}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` }, body: JSON.stringify(json) });
    expect((await asAdmin('/v1/roles', { name: 'openid-introspector', permissions: ['tokens:introspect'] })).status).toBe(201);
    const account = (await (await asAdmin('/v1/service-accounts', { name: 'openid-checker', role: 'openid-introspector' })).json()) as { client_id: string; client_secret: string };
    const session = await signIn();
    const other = await signIn();

    const result = await manageTokensWithOpenIdClient(issuer, account.client_id, {
      secret: account.client_secret,
      accessToken: session.accessToken,
      refreshToken: session.refreshToken,
      otherRefreshToken: other.refreshToken,
    });

    expect(result).toMatchObject({ introspection_endpoint: `${issuer}/oauth/introspect`, revocation_endpoint: `${issuer}/oauth/revoke` });
    expect(result.access).toMatchObject({ active: true, sub: subject, username: 'clients.admin', token_type: 'Bearer', iss: issuer, aud: AUDIENCE });
    expect(result.access.scope.split(' ')).toContain('tokens:introspect');
    // A refresh token is never active: the API refuses it as a bearer token (docs/DECISIONS.md).
    expect(result.refreshBefore).toEqual({ active: false });
    expect(result.refreshAfter).toEqual({ active: false });
    expect(result.otherAfter).toEqual({ active: false });
    // Whether openid-client's revocations took: the refresh exchange refuses both tokens now.
    for (const refreshToken of [session.refreshToken, other.refreshToken]) {
      const refreshed = await fetch(`${issuer}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }).toString(),
      });
      expect([refreshed.status, ((await refreshed.json()) as { error: string }).error]).toEqual([400, 'invalid_grant']);
    }
    // A wrong secret: our 401 with WWW-Authenticate: Basic, which openid-client reports as a challenge.
    expect(result.wrongSecret).toMatchObject({ name: 'WWWAuthenticateChallengeError', status: 401, scheme: 'basic' });
  });

  it('openid-client: clientCredentialsGrant at the discovered token endpoint with a secret and with PrivateKeyJwt, each token working on GET /v1/users', async () => {
    const admin = (await signIn()).accessToken;
    const asAdmin = (method: string, url: string, json: unknown) =>
      fetch(`${issuer}${url}`, { method, headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` }, body: JSON.stringify(json) });
    expect((await asAdmin('POST', '/v1/roles', { name: 'openid-reader', permissions: ['users:read', 'roles:read'] })).status).toBe(201);
    const account = (await (await asAdmin('POST', '/v1/service-accounts', { name: 'openid-service', role: 'openid-reader' })).json()) as {
      _id: string;
      client_id: string;
      client_secret: string;
    };
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = { ...(publicKey.export({ format: 'jwk' }) as Record<string, string>), kid: 'openid-key', alg: 'ES256', use: 'sig' };
    expect((await asAdmin('PUT', `/v1/service-accounts/${account._id}/keys`, { keys: [jwk] })).status).toBe(200);

    const result = await clientCredentialsWithOpenIdClient(issuer, account.client_id, {
      secret: account.client_secret,
      privateJwk: { ...(privateKey.export({ format: 'jwk' }) as Record<string, string>), kid: 'openid-key' },
      resource: ORDERS,
    });

    expect(result.error).toBeUndefined();
    for (const method of ['basic', 'post', 'privateKeyJwt']) {
      expect(result[method]).toMatchObject({ token_endpoint: `${issuer}/oauth/token`, token_type: 'bearer', refresh_token: null, users: 200 });
      expect(decodeJwt(result[method].access_token).payload).toMatchObject({ iss: issuer, sub: account._id, client_id: account.client_id });
    }
    expect(result.basic.scope.split(' ').sort()).toEqual(['roles:read', 'users:read']);
    expect(result.post.scope).toBe('users:read');
    // RFC 8707: a token for the orders service, which this API refuses (the orders service cannot replay it here).
    expect(result.forResource).toMatchObject({ token_type: 'bearer', users: 401 });
    expect(decodeJwt(result.forResource.access_token).payload).toMatchObject({ iss: issuer, aud: ORDERS, sub: account._id, client_id: account.client_id });
    // A wrong secret: our 401 with WWW-Authenticate: Basic, which openid-client reports as a challenge.
    expect(result.wrongSecret).toMatchObject({ name: 'WWWAuthenticateChallengeError', status: 401, scheme: 'basic' });
  });

  it('Go: golang.org/x/oauth2/clientcredentials at the token endpoint go-oidc discovers, the secret in the header and in the form, each token working on GET /v1/users', async () => {
    const binary = await ensureGoClientCredentials();
    const admin = (await signIn()).accessToken;
    const asAdmin = (url: string, json: unknown) =>
      fetch(`${issuer}${url}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` }, body: JSON.stringify(json) });
    expect((await asAdmin('/v1/roles', { name: 'go-reader', permissions: ['users:read', 'roles:read'] })).status).toBe(201);
    const account = (await (await asAdmin('/v1/service-accounts', { name: 'go-service', role: 'go-reader' })).json()) as { _id: string; client_id: string; client_secret: string };

    const [header, params, wrong] = await clientCredentialsWithGo(binary, issuer, account.client_id, account.client_secret);

    for (const attempt of [header, params]) {
      expect(attempt).toMatchObject({ token_endpoint: `${issuer}/oauth/token`, token_type: 'Bearer', expires: true, users: 200 });
      expect(attempt!.error).toBeUndefined();
      expect(decodeJwt(attempt!.access_token).payload).toMatchObject({ iss: issuer, sub: account._id, client_id: account.client_id });
    }
    expect(header!.scope.split(' ').sort()).toEqual(['roles:read', 'users:read']);
    expect(params!.scope).toBe('users:read');
    // x/oauth2 reports our RFC 6749 §5.2 refusal with its status and body.
    expect(wrong).toMatchObject({ style: 'wrong-secret' });
    expect(wrong!.error).toMatch(/401/);
    expect(wrong!.error).toMatch(/invalid_client/);
  });

  it('Spring Boot: an OAuth2 client with only issuer-uri, client id and secret obtains a token (client_credentials) and calls GET /v1/users', async () => {
    const jar = await ensureSpringClientCredentials();
    const admin = (await signIn()).accessToken;
    const asAdmin = (url: string, json: unknown) =>
      fetch(`${issuer}${url}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` }, body: JSON.stringify(json) });
    expect((await asAdmin('/v1/roles', { name: 'spring-reader', permissions: ['users:read', 'roles:read'] })).status).toBe(201);
    const account = (await (await asAdmin('/v1/service-accounts', { name: 'spring-service', role: 'spring-reader' })).json()) as { _id: string; client_id: string; client_secret: string };

    const [basic, post, wrong] = await clientCredentialsWithSpring(jar, issuer, account.client_id, account.client_secret);

    for (const attempt of [basic, post]) {
      expect(attempt).toMatchObject({ token_endpoint: `${issuer}/oauth/token`, token_type: 'Bearer', users: 200 });
      expect(attempt!.error).toBeUndefined();
      expect(decodeJwt(attempt!.access_token).payload).toMatchObject({ iss: issuer, sub: account._id, client_id: account.client_id });
    }
    expect(basic!.scope).toBe('roles:read users:read');
    expect(post!.scope).toBe('users:read');
    // Spring parses our RFC 6749 §5.2 refusal: the error code is in its exception's message.
    expect(wrong).toMatchObject({ registration: 'wrong-secret' });
    expect(wrong!.error).toMatch(/invalid_client/);
  });

  it('express-oauth2-jwt-bearer with issuerBaseURL and audience only: accepts a user’s and a service’s tokens, refuses forged, expired and misdirected ones', async () => {
    const server = await startExpressResourceServer(issuer, AUDIENCE);
    try {
      const verdicts = await callEach(server, 'express-oauth2-jwt-bearer');
      expect(accepted(verdicts, 'express-oauth2-jwt-bearer')).toEqual([...ACCEPTED].sort());
      expect(verdicts.filter((v) => REFUSED.includes(v.token)).every((v) => v.error === '401')).toBe(true);
    } finally {
      await server.stop();
    }
  });

  it('go-oidc: NewProvider(issuer) and a verifier with the discovery document’s algorithms accepts a user’s and a service’s tokens and refuses the others; without them only RS256', async () => {
    const binary = await ensureGoOidcVerifier();
    const verdicts = await verifyWithGoOidc(binary, issuer, AUDIENCE, tokens);
    expect(verdicts).toHaveLength(2 * Object.keys(tokens).length);
    expect(accepted(verdicts, 'go-oidc')).toEqual([...ACCEPTED].sort());
    // go-oidc 2.1 with nothing set (what go-oidc 3 no longer does): RS256 only, the ES256 token refused for its algorithm.
    expect(accepted(verdicts, 'go-oidc-default')).toEqual(['retired-RS256']);
    expect(verdicts.find((v) => v.verifier === 'go-oidc-default' && v.token === 'valid')!.error).toMatch(/unsupported algorithm/);
  });

  it('Spring Boot: a resource server with only issuer-uri and audiences accepts a user’s and a service’s tokens, refuses forged, expired and misdirected ones', async () => {
    const jar = await ensureSpringResourceServer();
    const server = await startSpringResourceServer(jar, issuer, AUDIENCE);
    try {
      const verdicts = await callEach(server, 'spring-boot');
      expect(accepted(verdicts, 'spring-boot')).toEqual([...ACCEPTED].sort());
      expect(verdicts.filter((v) => REFUSED.includes(v.token)).every((v) => v.error === '401')).toBe(true);
    } finally {
      await server.stop();
    }
  });

  it('RFC 8707: express-oauth2-jwt-bearer, go-oidc and a Spring Boot resource server given the orders service’s audience accept its token alone', async () => {
    const express = await startExpressResourceServer(issuer, ORDERS);
    const jar = await ensureSpringResourceServer();
    const spring = await startSpringResourceServer(jar, issuer, ORDERS);
    try {
      const verdicts = [...(await callEach(express, 'express-oauth2-jwt-bearer')), ...(await callEach(spring, 'spring-boot'))];
      verdicts.push(...(await verifyWithGoOidc(await ensureGoOidcVerifier(), issuer, ORDERS, tokens)));
      for (const verifier of ['express-oauth2-jwt-bearer', 'spring-boot', 'go-oidc']) expect([verifier, accepted(verdicts, verifier)]).toEqual([verifier, ['orders-service']]);
      // This service's own tokens, a user's and a service's, are another audience there.
      expect(verdicts.filter((v) => ['valid', 'service'].includes(v.token) && v.verifier !== 'go-oidc-default').every((v) => !v.accepted)).toBe(true);
    } finally {
      await express.stop();
      await spring.stop();
    }
  });
});
