import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { sendProblem } from '../error-handler';
import { OAuthError } from '../oauth/oauth-error';
import { sendOAuthError } from '../oauth/oauth-scope';
import { problem, shownPath } from '../problem';

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
 * so it sees every route declared after it. An OAuth endpoint's path (its routes' `config.oauth`) answers in
 * OAuth's error JSON, `invalid_request`, as the rest of its refusals do; every other path in problem+json.
 */
export default fp(async function methodNotAllowed(app: FastifyInstance) {
  const routes: { method: string; pattern: RegExp; oauth: boolean }[] = [];
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) routes.push({ method, pattern: patternOf(route.url), oauth: route.config?.oauth === true });
  });
  app.addHook('onRequest', async (request, reply) => {
    if (!request.is404) return;
    const path = request.url.split('?')[0]!;
    const known = routes.filter((route) => route.pattern.test(path));
    const allow = [...new Set(known.map((route) => route.method))].sort();
    // A route of this method took the path and found nothing there (a static route's directory, /docs/static/): 404.
    if (allow.length === 0 || allow.includes(request.method)) return;
    const detail = `${request.method} is not allowed on ${shownPath(path)}; allowed: ${allow.join(', ')}`;
    reply.header('allow', allow.join(', '));
    if (known.every((route) => route.oauth)) return sendOAuthError(reply, new OAuthError('invalid_request', detail, 405));
    return sendProblem(reply, problem('METHOD_NOT_ALLOWED', detail));
  });
});
