import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ConsoleBundle, ConsoleFile } from '../console/console-bundle';
import { noRoute, problem } from '../problem';
import { sendProblem } from '../error-handler';

/**
 * The console's own policy, stricter than helmet's default for the API: nothing but this origin, no inline
 * script or style (not even style attributes), no frame, no plugin, and no request to any other origin.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');

const IMMUTABLE = 'public, max-age=31536000, immutable';

function send(request: FastifyRequest, reply: FastifyReply, file: ConsoleFile, cacheControl: string) {
  reply.header('content-security-policy', CONSOLE_CSP).header('cache-control', cacheControl).header('vary', 'accept-encoding').type(file.type);
  const accepts = String(request.headers['accept-encoding'] ?? '');
  if (/\bgzip\b/.test(accepts)) return reply.header('content-encoding', 'gzip').send(file.gzipped);
  return reply.send(file.body);
}

/**
 * The admin console (#25) at /console: one page for every path under it (the console routes in the browser),
 * its assets under /console/assets with content-hashed names, so they are cached for good and the page
 * (revalidated every time) names the current ones. Outside the OpenAPI document, as the page's script is.
 */
export function consoleRoutes(deps: { bundle: ConsoleBundle }) {
  return async (app: FastifyInstance): Promise<void> => {
    const page = async (request: FastifyRequest, reply: FastifyReply) => {
      if (!deps.bundle.index) {
        return sendProblem(reply, problem('NOT_FOUND', 'The console was not built with this installation: run npm run build'));
      }
      return send(request, reply, deps.bundle.index, 'no-cache');
    };
    app.get('/console', { schema: { hide: true } }, page);
    app.get('/console/*', { schema: { hide: true } }, page);
    app.get<{ Params: { file: string } }>('/console/assets/:file', { schema: { hide: true } }, async (request, reply) => {
      const file = deps.bundle.assets.get(request.params.file);
      if (!file) return sendProblem(reply, problem('NOT_FOUND', `No console asset ${request.params.file}`));
      return send(request, reply, file, IMMUTABLE);
    });
    // Under assets, no page: /console/assets/ and a path climbing out (../) are files nobody serves, not console routes.
    for (const path of ['/console/assets', '/console/assets/*']) app.get(path, { schema: { hide: true } }, async (request, reply) => sendProblem(reply, noRoute(request)));
  };
}
