import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * A route any web origin may read (CORS): the discovery documents, the JWK set, the revocation endpoint. Never
     * the /v1 API nor the console's cookie routes, whose CSRF defence relies on no preflight ever being granted.
     */
    anyOrigin?: boolean;
  }
}

/** How long a browser may keep a preflight's answer (seconds; browsers cap it at 2 to 120 minutes). */
const PREFLIGHT_MAX_AGE = '600';

/**
 * `Access-Control-Allow-Origin: *` on every answer of a route marked `config.anyOrigin`, refusals included, and never
 * `Access-Control-Allow-Credentials`: a browser then sends no cookie and exposes nothing a cookie earned. Registered
 * before the routes it serves.
 */
export default fp(async function anyOrigin(app: FastifyInstance) {
  app.addHook('onSend', async (request, reply) => {
    if (request.routeOptions.config?.anyOrigin) reply.header('access-control-allow-origin', '*');
  });
});

/**
 * The CORS preflight of a route any origin may call with `method`: `OPTIONS url` answering 204 with the method and
 * `Content-Type` allowed (a form or JSON body). Left out of the OpenAPI document, as a protocol detail. `oauth`: an
 * OAuth endpoint's path, whose other refusals (a wrong method's 405) answer in OAuth's JSON.
 */
export function preflight(app: FastifyInstance, url: string, method: 'GET' | 'POST', options: { oauth?: boolean } = {}): void {
  app.options(url, { config: { anyOrigin: true, ...(options.oauth ? { oauth: true } : {}) }, schema: { hide: true } }, async (_request, reply) =>
    reply
      .code(204)
      .headers({ 'access-control-allow-methods': method, 'access-control-allow-headers': 'content-type', 'access-control-max-age': PREFLIGHT_MAX_AGE })
      .send(),
  );
}
