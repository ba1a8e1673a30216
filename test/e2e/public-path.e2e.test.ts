import { freePort } from '../support/free-port';
import { PathStrippingProxy } from '../support/path-stripping-proxy';
import { ADMIN, startTestApp, type TestApp } from '../support/test-app';

/**
 * The service behind a proxy that serves it under a path (PUBLIC_URL https://…/auth, the proxy strips /auth): the
 * addresses its answers name (`Location`, the `Link` of a next page, a cursor page's `next`) are requested by a client
 * as they are given, through the proxy, and answer. A client here knows only PUBLIC_URL.
 */
describe('behind a proxy that serves the service under a path', () => {
  let proxy: PathStrippingProxy;
  let app: TestApp;
  let token: string;

  beforeAll(async () => {
    proxy = await PathStrippingProxy.start('/auth');
    app = await startTestApp({ PUBLIC_URL: proxy.publicUrl });
    proxy.target = app.url;
    const signedIn = await call('POST', '/v1/auth/signin', { username: ADMIN.username, password: ADMIN.password });
    expect(signedIn.status).toBe(200);
    token = ((await signedIn.json()) as { accessToken: string }).accessToken;
  });
  afterAll(async () => {
    await app?.close();
    await proxy?.close();
  });

  /** A request through the proxy: `target` a path under PUBLIC_URL's, or an address an answer named (resolved against it). */
  function call(method: string, target: string, json?: unknown): Promise<Response> {
    const url = target.startsWith('/auth/') ? new URL(target, proxy.publicUrl) : new URL(`${proxy.publicUrl}${target}`);
    return fetch(url, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    });
  }
  const nextOf = (response: Response) => /^<([^>]+)>; rel="next"$/.exec(response.headers.get('link') ?? '')?.[1];

  it.each([
    ['an invited user', '/v1/users/invite', { email: 'behind.proxy@example.com' }, (body: Record<string, unknown>) => body.email === 'behind.proxy@example.com'],
    ['a new role', '/v1/roles', { name: 'behind-proxy', permissions: ['roles:read'] }, (body: Record<string, unknown>) => body.name === 'behind-proxy'],
    ['a new service account', '/v1/service-accounts', { name: 'behind-proxy', role: 'member' }, (body: Record<string, unknown>) => body.name === 'behind-proxy'],
  ])('names %s at an address under the path that answers it', async (_what, path, json, isIt) => {
    const created = await call('POST', path, json);
    expect(created.status).toBe(201);
    const location = created.headers.get('location')!;
    expect(location).toMatch(/^\/auth\/v1\//);
    const read = await call('GET', location);
    expect(read.status).toBe(200);
    expect(isIt((await read.json()) as Record<string, unknown>)).toBe(true);
  });

  it('links the next page of users (page and cursor forms) and of audit events under the path, each link answering', async () => {
    for (const first of ['/v1/users?page_size=1', '/v1/users?page_size=1&after=00000000-0000-0000-0000-000000000000', '/v1/audit-events?page_size=1']) {
      const page = await call('GET', first);
      expect(page.status).toBe(200);
      const next = nextOf(page)!;
      expect(next).toMatch(/^\/auth\/v1\//);
      const body = (await page.json()) as { next?: string };
      if (first.includes('after=')) expect(body.next).toBe(next);
      const followed = await call('GET', next);
      expect({ first, status: followed.status }).toEqual({ first, status: 200 });
    }
  });
});

/**
 * The same PUBLIC_URL path with a proxy that forwards it rather than strip it: every route answers under it, as
 * discovery always did there, so a client that follows the discovered endpoints as they are reaches each one.
 */
describe('behind a proxy that forwards the path', () => {
  let app: TestApp;
  let issuer: string;

  beforeAll(async () => {
    const port = await freePort();
    issuer = `http://127.0.0.1:${port}/ac`;
    app = await startTestApp({ PORT: String(port), PUBLIC_URL: issuer });
  });
  afterAll(async () => app?.close());

  it('answers the discovered JWK set, token and introspection endpoints and the API under the path, in their own formats', async () => {
    const metadata = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as Record<string, string>;
    expect(metadata).toMatchObject({ issuer, jwks_uri: `${issuer}/.well-known/jwks.json`, token_endpoint: `${issuer}/oauth/token` });
    const jwks = await fetch(metadata.jwks_uri!);
    expect(jwks.status).toBe(200);
    expect(((await jwks.json()) as { keys: unknown[] }).keys.length).toBeGreaterThan(0);

    const admin = await app.signIn();
    expect((await app.request('POST', '/v1/roles', { token: admin, json: { name: 'prefixed', permissions: ['tokens:introspect'] } })).status).toBe(201);
    const account = (await app.request('POST', '/v1/service-accounts', { token: admin, json: { name: 'prefixed', role: 'prefixed' } })).body;
    const form = (fields: Record<string, string>) => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
    const credentials = { client_id: account.client_id as string, client_secret: account.client_secret as string };
    const granted = await fetch(metadata.token_endpoint!, form({ grant_type: 'client_credentials', ...credentials }));
    expect(granted.status).toBe(200);
    const { access_token } = (await granted.json()) as { access_token: string };
    const introspected = await fetch(metadata.introspection_endpoint!, form({ token: access_token, ...credentials }));
    expect(((await introspected.json()) as { active: boolean }).active).toBe(true);
    expect((await fetch(`${issuer}/v1/me`, { headers: { authorization: `Bearer ${admin}` } })).status).toBe(200);

    // A refusal there is the endpoint's own: OAuth's JSON at the token endpoint, not a problem+json 404.
    const refused = await fetch(metadata.token_endpoint!, form({ grant_type: 'nonsense' }));
    expect([refused.status, refused.headers.get('content-type'), ((await refused.json()) as { error: string }).error]).toEqual([400, 'application/json; charset=utf-8', 'unsupported_grant_type']);
    // The path is taken off only where it leads: a path outside it is not found, as before.
    expect((await fetch(`http://127.0.0.1:${new URL(issuer).port}/acx/oauth/token`, form({ grant_type: 'nonsense' }))).status).toBe(404);
  });
});
