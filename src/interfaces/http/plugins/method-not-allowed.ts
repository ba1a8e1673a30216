import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { sendProblem } from '../error-handler';
import { problem } from '../problem';

/** A route's URL pattern as a test of a concrete path (`:id` one segment, `*` the rest; a trailing slash ignored, as the router does). */
function patternOf(url: string): RegExp {
  const source = url
    .replace(/\/+$/, '')
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment === '*' ? '.*' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}/?$`);
}

/**
 * A known path asked with a method it does not have answers 405 with `Allow` (RFC 9110), not 404 or
 * 401: the check runs on the root's first onRequest hook, before authentication, for requests no route
 * matched. The paths are public anyway (the OpenAPI document lists them). Registered before any route,
 * so it sees every route declared after it.
 */
export default fp(async function methodNotAllowed(app: FastifyInstance) {
  const routes: { method: string; pattern: RegExp }[] = [];
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) routes.push({ method, pattern: patternOf(route.url) });
  });
  app.addHook('onRequest', async (request, reply) => {
    if (!request.is404) return;
    const path = request.url.split('?')[0]!;
    const allow = [...new Set(routes.filter((route) => route.pattern.test(path)).map((route) => route.method))].sort();
    if (allow.length === 0) return;
    return sendProblem(reply.header('allow', allow.join(', ')), problem('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${path}; allowed: ${allow.join(', ')}`));
  });
});
