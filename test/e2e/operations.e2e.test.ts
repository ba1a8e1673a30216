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

  it('sets security headers and echoes a sane x-request-id', async () => {
    const response = await app.request('GET', '/healthz', { headers: { 'x-request-id': 'trace-abc.123' } });
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
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
