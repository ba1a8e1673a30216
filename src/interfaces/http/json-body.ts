import type { FastifyInstance } from 'fastify';

/**
 * JSON bodies as fastify's own parser reads them (a `__proto__` or `constructor.prototype` key refused), except an
 * empty one, which is no body: many clients set `Content-Type: application/json` on every request, a DELETE or a
 * POST that takes nothing included, and that was a 400 MALFORMED_JSON. A route that needs a body then says so
 * through its schema (400 VALIDATION_FAILED naming `body`).
 */
export function readJsonBodies(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') {
      done(null, undefined);
      return;
    }
    parse(request, body as string, done);
  });
}
