import type { FastifyInstance } from 'fastify';
import type { SigningKey } from '../../../infrastructure/crypto/signing-keys';
import type { Readiness } from '../../../infrastructure/system/readiness';

export function systemRoutes(deps: { readiness: Readiness; signingKey: SigningKey }) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get('/healthz', { schema: { tags: ['operations'], summary: 'Liveness: the process is up' } }, async () => ({
      status: 'ok',
    }));

    app.get(
      '/readyz',
      { schema: { tags: ['operations'], summary: 'Readiness: database reachable and migrated, not draining' } },
      async (_request, reply) => {
        const report = await deps.readiness.check();
        return reply.code(report.ready ? 200 : 503).header('cache-control', 'no-store').send({
          status: report.ready ? 'ready' : 'not ready',
          ...report.checks,
        });
      },
    );

    app.get(
      '/.well-known/jwks.json',
      { schema: { tags: ['auth'], summary: 'Public keys that verify our access tokens (EdDSA, Ed25519)' } },
      async (_request, reply) =>
        reply.header('cache-control', 'public, max-age=300').send({ keys: [deps.signingKey.jwk] }),
    );
  };
}
