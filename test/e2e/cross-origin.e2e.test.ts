import { startTestApp, type TestApp } from '../support/test-app';

/**
 * CORS: a browser app on another origin may read discovery and the JWK set and revoke its user's token on sign-out
 * (`Access-Control-Allow-Origin: *`, never with credentials), and nothing else: the /v1 API and the console's cookie
 * routes grant no origin (the console's CSRF defence relies on it: docs/DECISIONS.md, "CSRF defence").
 */
const ORIGIN = 'https://app.example.org';

describe('cross-origin reads (CORS)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ PUBLIC_URL: 'https://id.example.com/ac' });
  });
  afterAll(async () => app.close());

  const preflight = (path: string, method: string) =>
    fetch(`${app.url}${path}`, { method: 'OPTIONS', headers: { origin: ORIGIN, 'access-control-request-method': method, 'access-control-request-headers': 'content-type' } });

  it.each([
    '/.well-known/openid-configuration',
    '/.well-known/oauth-authorization-server',
    '/.well-known/oauth-authorization-server/ac',
    '/ac/.well-known/openid-configuration',
    '/.well-known/jwks.json',
  ])('lets any origin read %s: a preflight answered, the GET with Access-Control-Allow-Origin: *', async (path) => {
    const allowed = await preflight(path, 'GET');
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('*');
    expect(allowed.headers.get('access-control-allow-methods')).toBe('GET');
    expect(allowed.headers.get('access-control-allow-credentials')).toBeNull();
    const read = await fetch(`${app.url}${path}`, { headers: { origin: ORIGIN } });
    expect(read.status).toBe(200);
    expect(read.headers.get('access-control-allow-origin')).toBe('*');
    expect(read.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('lets any origin revoke a token (no cookie is read there), refusals included', async () => {
    const allowed = await preflight('/oauth/revoke', 'POST');
    expect(allowed.status).toBe(204);
    expect([allowed.headers.get('access-control-allow-origin'), allowed.headers.get('access-control-allow-methods')]).toEqual(['*', 'POST']);
    expect(allowed.headers.get('access-control-allow-headers')).toBe('content-type');
    const form = { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN };
    const revoked = await fetch(`${app.url}/oauth/revoke`, { method: 'POST', headers: form, body: `token=${'x'.repeat(43)}` });
    expect([revoked.status, revoked.headers.get('access-control-allow-origin')]).toEqual([200, '*']);
    const refused = await fetch(`${app.url}/oauth/revoke`, { method: 'POST', headers: form, body: '' });
    expect([refused.status, refused.headers.get('access-control-allow-origin')]).toEqual([400, '*']);
  });

  it('grants no origin on the /v1 API, the console’s cookie routes, the token endpoint and introspection', async () => {
    const token = await app.signIn();
    for (const [path, method] of [
      ['/v1/me', 'GET'],
      ['/v1/auth/signin', 'POST'],
      ['/v1/auth/console-session/refresh', 'POST'],
      ['/v1/auth/console-session', 'DELETE'],
      ['/oauth/token', 'POST'],
      ['/oauth/introspect', 'POST'],
    ] as const) {
      const asked = await preflight(path, method);
      expect([path, asked.status, asked.headers.get('access-control-allow-origin')]).toEqual([path, 405, null]);
    }
    const me = await fetch(`${app.url}/v1/me`, { headers: { origin: ORIGIN, authorization: `Bearer ${token}` } });
    expect([me.status, me.headers.get('access-control-allow-origin')]).toEqual([200, null]);
  });
});
