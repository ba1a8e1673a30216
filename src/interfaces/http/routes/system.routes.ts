import type { FastifyInstance } from 'fastify';
import type { VerificationKey } from '../../../infrastructure/crypto/signing-keys';
import type { Readiness } from '../../../infrastructure/system/readiness';
import { preflight } from '../plugins/any-origin';
import { anyRequestProblems } from '../schemas';

const json = (description: string, schema: object) => ({ description, content: { 'application/json': { schema } } });

export function systemRoutes(deps: { readiness: Readiness; verificationKeys: readonly VerificationKey[] }) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get(
      '/healthz',
      {
        schema: {
          operationId: 'getLiveness',
          tags: ['operations'],
          summary: 'Liveness: the process is up',
          security: [],
          response: {
            200: json('Alive', { type: 'object', required: ['status'], properties: { status: { type: 'string', const: 'ok' } } }),
            ...anyRequestProblems,
          },
        },
      },
      async () => ({ status: 'ok' }),
    );

    app.get(
      '/readyz',
      {
        schema: {
          operationId: 'getReadiness',
          tags: ['operations'],
          summary: 'Readiness: database reachable and migrated, not draining',
          security: [],
          response: {
            200: json('Ready to serve', { $ref: 'Readiness#' }),
            ...anyRequestProblems,
            503: json('Not ready: the report says which check fails (or that the process is draining)', { $ref: 'Readiness#' }),
          },
        },
      },
      async (_request, reply) => {
        const report = await deps.readiness.check();
        return reply.code(report.ready ? 200 : 503).header('cache-control', 'no-store').send({
          status: report.ready ? 'ready' : 'not ready',
          ...report.checks,
        });
      },
    );

    preflight(app, '/.well-known/jwks.json', 'GET');
    app.get(
      '/.well-known/jwks.json',
      {
        // Any web origin may read it (CORS): a browser app verifies tokens with it as any resource server does.
        config: { anyOrigin: true },
        schema: {
          operationId: 'getJwks',
          tags: ['auth'],
          summary: 'Public keys that verify our access tokens (RFC 7517): the current key first, then retired ones',
          description: 'Pick the key by the token header’s `kid`; each key says its `alg`. Cacheable for 5 minutes. Any web origin may read it (`Access-Control-Allow-Origin: *`, no credentials).',
          security: [],
          response: { 200: json('The key set', { $ref: 'JwkSet#' }), ...anyRequestProblems },
        },
      },
      async (_request, reply) =>
        reply.header('cache-control', 'public, max-age=300').send({ keys: deps.verificationKeys.map((key) => key.jwk) }),
    );
  };
}
