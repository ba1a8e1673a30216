import { ADMIN, startTestApp, type TestApp, type TestResponse } from '../support/test-app';
import { decodeJwt } from '../support/tokens';

/**
 * Resource indicators (RFC 8707) at POST /oauth/token: a service account asks for a token for another service listed
 * in RESOURCE_SERVERS, and gets one whose `aud` is that service's. This API refuses such a token, so the service it
 * was sent to cannot replay it here; introspection tells that service the token is active and its own.
 */
const FORM = 'application/x-www-form-urlencoded';
const ORDERS = 'https://orders.example.com';
const BILLING = 'urn:example:billing';

describe('resource indicators at the token endpoint (RFC 8707)', () => {
  let app: TestApp;
  let admin: string;
  let issuer: string;
  let counter = 0;

  const form = (path: string, fields: Record<string, string | string[]>, headers: Record<string, string> = {}) => {
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries(fields)) for (const one of [value].flat()) body.append(name, one);
    return app.request('POST', path, { body: body.toString(), headers: { 'content-type': FORM, ...headers } });
  };
  const basic = (a: { clientId: string; secret: string }) => ({ authorization: `Basic ${Buffer.from(`${encodeURIComponent(a.clientId)}:${encodeURIComponent(a.secret)}`).toString('base64')}` });
  const account = async (permissions: string[]) => {
    counter += 1;
    const role = `resourcerole${counter}`;
    expect((await app.request('POST', '/v1/roles', { token: admin, json: { name: role, permissions } })).status).toBe(201);
    const created = await app.request('POST', '/v1/service-accounts', { token: admin, json: { name: `resource-svc-${counter}`, role } });
    expect(created.status).toBe(201);
    return { id: created.body._id as string, clientId: created.body.client_id as string, secret: created.body.client_secret as string };
  };
  const grant = (a: { clientId: string; secret: string }, extra: Record<string, string | string[]> = {}) => form('/oauth/token', { grant_type: 'client_credentials', ...extra }, basic(a));
  const expectOAuthError = (response: TestResponse, status: number, error: string) => {
    expect({ status: response.status, error: response.body?.error }).toEqual({ status, error });
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('cache-control')).toBe('no-store');
  };

  beforeAll(async () => {
    app = await startTestApp({ RESOURCE_SERVERS: `${ORDERS}, ${BILLING}`, CLIENT_AUTH_RATE_LIMIT: '0' });
    admin = await app.signIn();
    issuer = (await app.request('GET', '/.well-known/openid-configuration')).body.issuer as string;
  });
  afterAll(async () => app.close());

  it('gives a listed resource server a token of its own audience, which this API refuses and introspection calls active and its', async () => {
    const reports = await account(['users:read']);
    const introspector = await account(['tokens:introspect']);

    const response = await grant(reports, { resource: ORDERS });

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ token_type: 'Bearer', scope: 'users:read' });
    const token = response.body.access_token as string;
    expect(decodeJwt(token).payload).toMatchObject({ iss: issuer, aud: ORDERS, sub: reports.id, client_id: reports.clientId, scope: 'users:read' });
    // The service it was sent to cannot replay it here: another audience is no token of this API's.
    const replayed = await app.request('GET', '/v1/users', { token });
    expect(replayed.status).toBe(401);
    expect(replayed.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token"/);
    // The resource server asks about its token and reads that it is its own.
    const introspected = await form('/oauth/introspect', { token }, basic(introspector));
    expect(introspected.status).toBe(200);
    expect(introspected.body).toMatchObject({ active: true, aud: ORDERS, client_id: reports.clientId, sub: reports.id, iss: issuer, scope: 'users:read' });
    // A URN is a resource as well as a URL (RFC 8707 §2: an absolute URI).
    const billing = await grant(reports, { resource: BILLING });
    expect(decodeJwt(billing.body.access_token as string).payload.aud).toBe(BILLING);
  });

  it('gives this service’s own token for no resource and for its issuer, which this API takes', async () => {
    const reports = await account(['users:read']);
    for (const resource of [undefined, issuer, `${issuer}/`]) {
      const response = await grant(reports, resource === undefined ? {} : { resource });
      expect(response.status).toBe(200);
      expect(decodeJwt(response.body.access_token as string).payload.aud).toBe('access-control');
      expect((await app.request('GET', '/v1/users', { token: response.body.access_token as string })).status).toBe(200);
    }
  });

  it('refuses a resource not listed, a near miss of a listed one, and two resources: invalid_target, no token', async () => {
    const reports = await account(['users:read']);
    for (const resource of ['https://evil.example.com', `${ORDERS}/`, 'https://orders.example.com#x', 'orders', 'access-control']) {
      expectOAuthError(await grant(reports, { resource }), 400, 'invalid_target');
    }
    // Longer than any URI a deployment lists: refused by the form's schema, as a scope too long is.
    expectOAuthError(await grant(reports, { resource: `${ORDERS}/${'x'.repeat(2048)}` }), 400, 'invalid_request');
    expectOAuthError(await grant(reports, { resource: [ORDERS, BILLING] }), 400, 'invalid_target');
    // A client's own authentication comes first: a wrong secret is invalid_client whatever the resource.
    expectOAuthError(await grant({ ...reports, secret: `${reports.secret}x` }, { resource: 'https://evil.example.com' }), 401, 'invalid_client');
  });

  it('audits a token for another service with its audience, and a refused resource as a refused grant', async () => {
    const reports = await account(['users:read']);
    expect((await grant(reports, { resource: ORDERS })).status).toBe(200);
    expect((await grant(reports, { resource: 'https://evil.example.com' })).status).toBe(400);

    const trail = await app.request('GET', `/v1/audit-events?target=${reports.id}&page_size=10`, { token: admin });
    expect(trail.status).toBe(200);
    const entries = trail.body.audit_events as { action: string; outcome: string; code: string | null; changes: { field: string; after: unknown }[] | null }[];
    expect(entries.map((e) => [e.action, e.outcome, e.code])).toEqual(
      expect.arrayContaining([
        ['service_account.token_granted', 'success', 'client_secret'],
        ['service_account.token_refused', 'failure', 'invalid_target'],
      ]),
    );
    const granted = entries.find((e) => e.action === 'service_account.token_granted')!;
    expect(granted.changes).toContainEqual(expect.objectContaining({ field: 'audience', after: ORDERS }));
  });

  it('keeps a user’s tokens this service’s: a refresh naming another service is invalid_target, naming the issuer is fine', async () => {
    const signedIn = await app.request('POST', '/v1/auth/signin', { json: { username: ADMIN.username, password: ADMIN.password } });
    expect(signedIn.status).toBe(200);
    const refreshToken = signedIn.body.refreshToken as string;

    expectOAuthError(await form('/oauth/token', { grant_type: 'refresh_token', refresh_token: refreshToken, resource: ORDERS }), 400, 'invalid_target');
    // Refused before the exchange: the refresh token is still good.
    const refreshed = await form('/oauth/token', { grant_type: 'refresh_token', refresh_token: refreshToken, resource: issuer });
    expect(refreshed.status).toBe(200);
    expect(decodeJwt(refreshed.body.access_token as string).payload.aud).toBe('access-control');
  });
});
