import { AsyncResource } from 'node:async_hooks';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { ServiceMetrics } from '../../../infrastructure/observability/service-metrics';
import { requestContext } from '../../../infrastructure/observability/request-context';

/**
 * What a route's answer counts, beyond the request timing every route gets: the HTTP edge records
 * it, the use cases know nothing of metrics.
 */
export type RouteOutcome = (status: number, metrics: ServiceMetrics) => void;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Called with the status of every answer of this route, a refusal by a hook (401, 429) included. */
    outcome?: RouteOutcome;
  }
}

/**
 * - The request id follows the request through its async work (AsyncLocalStorage), so the outbox
 *   row, hence the event, and log lines written by adapters carry it.
 * - Every request is timed by route pattern (never the raw URL: ids and tokens stay out of labels).
 * `GET /metrics` is not here: it is served on the management port (METRICS_PORT), never on the public listener.
 */
export default fp(async function observability(app: FastifyInstance, options: { metrics: ServiceMetrics }) {
  const { metrics } = options;
  const scopes = new WeakMap<FastifyRequest, AsyncResource>();

  app.addHook('onRequest', (request, _reply, done) => {
    const userAgent = request.headers['user-agent'];
    requestContext.run({ requestId: request.id, address: request.ip, userAgent: typeof userAgent === 'string' ? userAgent : undefined }, () => {
      const scope = new AsyncResource('access-control-request');
      scopes.set(request, scope);
      scope.runInAsyncScope(done, request.raw);
    });
  });
  // The body's stream events run in the socket's context, not the request's: re-enter it for validation, the handler and after.
  app.addHook('preValidation', (request, _reply, done) => {
    const scope = scopes.get(request);
    if (scope) scope.runInAsyncScope(done, request.raw);
    else done();
  });

  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const status = reply.statusCode;
    metrics.observeHttpRequest(request.method, route, status, reply.elapsedTime / 1000);
    request.routeOptions.config?.outcome?.(status, metrics);
  });
});
