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
