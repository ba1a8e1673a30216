import type { FastifyInstance } from 'fastify';
import type { VerificationKey } from '../../../infrastructure/crypto/signing-keys';
import type { Readiness } from '../../../infrastructure/system/readiness';

export function systemRoutes(deps: { readiness: Readiness; verificationKeys: readonly VerificationKey[] }) {
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
      { schema: { tags: ['auth'], summary: 'Public keys that verify our access tokens (EdDSA, Ed25519): the current key first, then retired ones' } },
      async (_request, reply) =>
        reply.header('cache-control', 'public, max-age=300').send({ keys: deps.verificationKeys.map((key) => key.jwk) }),
    );
  };
}
