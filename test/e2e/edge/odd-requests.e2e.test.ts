/**
 * What the HTTP edge answers to requests no route takes: unknown and odd paths, methods, heads (review of the HTTP
 * edge, items 4 to 7). Every answer is problem+json; nothing a client sent that may be secret comes back.
 */
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
