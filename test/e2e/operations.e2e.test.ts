import { createHash } from 'node:crypto';
import { startTestApp, type TestApp } from '../support/test-app';

describe('operations endpoints', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => app.close());

  it('GET /healthz is 200 while the process runs', async () => {
    const response = await app.request('GET', '/healthz');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ok' });
  });

  it('GET /readyz is 200 with the database up and migrated', async () => {
    const response = await app.request('GET', '/readyz');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ready', database: 'up', migrations: 'applied', draining: false });
  });

  it('serves the OpenAPI 3.1 document generated from the route schemas, and its UI', async () => {
    const json = await app.request('GET', '/docs/json');
    expect(json.status).toBe(200);
    expect(json.body.openapi).toBe('3.1.0');
    expect(Object.keys(json.body.paths)).toEqual(
      expect.arrayContaining(['/v1/auth/signin', '/v1/users', '/v1/users/invite', '/v1/permissions', '/.well-known/jwks.json']),
    );
    const params = json.body.paths['/v1/permissions'].get.parameters.map((p: { name: string }) => p.name);
    expect(params).toEqual(expect.arrayContaining(['page', 'page_size', 'group', 'name', 'filter[group]', 'filter[name]']));
    expect(json.body.components.schemas).toHaveProperty('User');
    const ui = await app.request('GET', '/docs/');
    expect(ui.status).toBe(200);
    expect(ui.headers.get('content-type')).toMatch(/text\/html/);
  });

  it('serves the pages a person meets under a strict policy: own scripts only, their one style block by hash, no frame, no base, forms to self', async () => {
    for (const path of ['/account/security', '/invitations/accept?token=nope', '/password-reset?token=nope']) {
      const page = await app.request('GET', path);
      const csp = page.headers.get('content-security-policy') ?? '';
      const style = /<style>([\s\S]*?)<\/style>/.exec(page.text)?.[1];
      expect(style).toBeDefined();
      const hash = createHash('sha256').update(style!).digest('base64');
      expect({ path, csp: csp.split('; ').sort() }).toEqual({
        path,
        csp: [
          "base-uri 'none'",
          "connect-src 'self'",
          "default-src 'none'",
          "form-action 'self'",
          "frame-ancestors 'none'",
          "object-src 'none'",
          "script-src 'self'",
          `style-src 'sha256-${hash}'`,
        ],
      });
      expect(page.text).not.toMatch(/style="|<script>/);
    }
  });

  it('sets security headers and echoes a sane x-request-id', async () => {
    const response = await app.request('GET', '/healthz', { headers: { 'x-request-id': 'trace-abc.123' } });
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    // The test app's PUBLIC_URL is http: no HSTS and no upgrade of its own scripts to https (security-headers.test.ts).
    expect(response.headers.get('strict-transport-security')).toBeNull();
    expect(response.headers.get('content-security-policy')).not.toContain('upgrade-insecure-requests');
    expect(response.headers.get('cross-origin-opener-policy')).toBe('same-origin');
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self';");
    expect(response.headers.get('content-security-policy')).toContain("object-src 'none'");
    for (const path of ['/v1/users', '/nope', '/.well-known/openid-configuration']) {
      const other = await app.request('GET', path);
      expect({ path, nosniff: other.headers.get('x-content-type-options'), csp: other.headers.get('content-security-policy') }).toEqual({
        path,
        nosniff: 'nosniff',
        csp: response.headers.get('content-security-policy'),
      });
    }
    // Swagger UI brings its own policy (its inline bootstrap needs it).
    const docs = await app.request('GET', '/docs/');
    expect(docs.headers.get('content-security-policy')).not.toBe(response.headers.get('content-security-policy'));
    // Nor does it upgrade its own assets to https over plain HTTP.
    expect(docs.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(docs.headers.get('content-security-policy')).not.toContain('upgrade-insecure-requests');
    expect(docs.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('x-request-id')).toBe('trace-abc.123');
    const bad = await app.request('GET', '/healthz', { headers: { 'x-request-id': 'a b <script>' } });
    expect(bad.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers an unknown path outside /v1 with a 404 problem', async () => {
    const response = await app.request('GET', '/nope');
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });
});

describe('graceful shutdown', () => {
  it('turns /readyz to 503 at once, keeps serving through the drain, then stops accepting', async () => {
    const app = await startTestApp({ SHUTDOWN_DRAIN: '1s' });
    const token = await app.signIn();
    const readiness = app.api.container.cradle.readiness;
    const closing = app.api.close();

    const readyz = await app.request('GET', '/readyz');
    expect(readyz.status).toBe(503);
    expect(readyz.body).toMatchObject({ status: 'not ready', draining: true });
    // Endpoints may still route traffic here during the drain: it is served.
    expect((await app.request('GET', '/v1/users', { token })).status).toBe(200);
    expect(readiness.isDraining).toBe(true);

    await closing;
    await expect(app.request('GET', '/healthz')).rejects.toThrow();
    await app.close();
  });
});
