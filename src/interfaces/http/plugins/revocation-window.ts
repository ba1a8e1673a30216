import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { type RequestContext, requestContext } from '../../../infrastructure/observability/request-context';

/**
 * A request that changed who may do what (a sign-out, a deactivation, a new role, a role's permissions, a
 * service account's) answers only after the revocation window (REVOCATION_WINDOW, revocation-watch.ts): by
 * then every replica that still serves from memory has read the change, so the next request anywhere is
 * judged by it. Only those requests wait; reads never do.
 */
export default fp(async function revocationWindow(app: FastifyInstance, options: { settle: () => Promise<void> }) {
  // The request's context is read where the handler runs (its async scope) and kept for onSend.
  const contexts = new WeakMap<FastifyRequest, RequestContext>();
  app.addHook('preHandler', (request, _reply, done) => {
    const context = requestContext.getStore();
    if (context) contexts.set(request, context);
    done();
  });
  app.addHook('onSend', async (request, _reply, payload) => {
    if (contexts.get(request)?.revoking) await options.settle();
    return payload;
  });
});
