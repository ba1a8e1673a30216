/**
 * What the HTTP edge answers to requests no route takes: unknown and odd paths, methods, heads (review of the HTTP
 * edge, items 4 to 7). Every answer is problem+json; nothing a client sent that may be secret comes back.
 */
import http from 'node:http';
import { useEdgeApp } from './edge-app';

describe('odd requests', () => {
  const app = useEdgeApp();

  describe('a path no route serves', () => {
    it('is 404 NOT_FOUND showing the path without its query', async () => {
      const response = await app().request('GET', '/invitations/acceptx?token=SECRET-TOKEN-123');
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ code: 'NOT_FOUND', detail: 'No route GET /invitations/acceptx' });
      expect(response.text).not.toContain('SECRET');

      const token = await app().signIn();
      const v1 = await app().request('GET', '/v1/nothing-here?api_key=SECRET-KEY', { token });
      expect(v1.status).toBe(404);
      expect(v1.body.detail).toBe('No route GET /v1/nothing-here');
    });

    it('shows at most 200 characters of a long path', async () => {
      const path = `/${'a'.repeat(10_000)}`;
      const response = await app().request('GET', `${path}?q=1`);
      expect(response.status).toBe(404);
      expect(response.body.detail).toBe(`No route GET ${path.slice(0, 200)}…`);
    });
  });
});

describe('static routes', () => {
  const app = useEdgeApp();
  const get = (path: string) => fetch(`${app().url}${path}`);

  it.each(['/docs/static/', '/docs/static/../../package.json', '/docs/static/%2e%2e/%2e%2e/package.json', '/console/assets/', '/console/assets/../../package.json', '/console/assets/%2e%2e/x'])(
    'answers 404 NOT_FOUND to %s, as to any path that serves nothing',
    async (path) => {
      // fetch would resolve the dots: the raw path goes as written.
      const response = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const { hostname, port } = new URL(app().url);
        http.get({ host: hostname, port, path }, (res) => {
          let body = '';
          res.on('data', (chunk) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        }).on('error', reject);
      });
      expect(response.status).toBe(404);
      expect(JSON.parse(response.body)).toMatchObject({ code: 'NOT_FOUND' });
    },
  );

  it('still serves the files there', async () => {
    expect((await get('/docs/static/index.html')).status).toBe(200);
  });
});
