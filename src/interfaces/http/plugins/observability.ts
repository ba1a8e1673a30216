import { AsyncResource } from 'node:async_hooks';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { ServiceMetrics } from '../../../infrastructure/observability/service-metrics';
import { requestContext } from '../../../infrastructure/observability/request-context';

/** Counters derived from what a route answered: the HTTP edge records them, the use cases know nothing of metrics. */
const OUTCOMES: Record<string, (status: number, metrics: ServiceMetrics) => void> = {
  'POST /v1/auth/signin': (status, metrics) => {
    if (status === 200) metrics.signIn('success');
    else if (status === 401) metrics.signIn('failure');
    else if (status === 429) metrics.signIn('throttled');
  },
  'POST /v1/users/invite': (status, metrics) => {
    if (status === 201) metrics.invitationCreated();
  },
  'POST /v1/invitations/accept': (status, metrics) => {
    if (status === 200) metrics.invitationAccepted();
  },
};

/**
 * - The request id follows the request through its async work (AsyncLocalStorage), so the outbox
 *   row, hence the event, and log lines written by adapters carry it.
 * - Every request is timed by route pattern (never the raw URL: ids and tokens stay out of labels).
 * - `GET /metrics`: the Prometheus text format.
 */
export default fp(async function observability(app: FastifyInstance, options: { metrics: ServiceMetrics }) {
  const { metrics } = options;
  const scopes = new WeakMap<FastifyRequest, AsyncResource>();

  app.addHook('onRequest', (request, _reply, done) => {
    requestContext.run({ requestId: request.id }, () => {
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
    OUTCOMES[`${request.method} ${route}`]?.(status, metrics);
  });

  app.get(
    '/metrics',
    { schema: { tags: ['operations'], summary: 'Prometheus metrics of this process' } },
    async (_request, reply) => {
      const body = await metrics.render();
      return reply.header('content-type', metrics.contentType()).header('cache-control', 'no-store').send(body);
    },
  );
});
