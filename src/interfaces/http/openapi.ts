import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import type { Config } from '../../infrastructure/config/config';

const DESCRIPTION = `Users, roles and permissions: sign-in, user list, invitations, permission list.

Every error is \`application/problem+json\` (RFC 9457) with a stable \`code\`; validation errors list the
failing fields in \`errors\`. Beyond what each operation lists: a path no operation has answers 404
(under \`/v1\`, 401 first without a valid token), a known path asked with another method 405 with \`Allow\`.
A request body may hold only the fields its operation names: any other field is a 400 naming it.
The OAuth endpoints (\`/oauth/token\`, \`/oauth/revoke\`, \`/oauth/introspect\`) speak OAuth instead: their errors,
a wrong method's 405 included, are RFC 6749's \`{error, error_description}\`, and they ignore form fields they do not
know, as RFC 6749 says.
Every answer carries \`x-request-id\` (the caller's own when it is a sane token).`;

/**
 * GET /metrics is not a route of this app: a listener of its own on METRICS_PORT serves it (so the
 * public port never exposes it). It is documented here all the same, with that listener as its server.
 */
const METRICS_PATH = {
  get: {
    operationId: 'getMetrics',
    tags: ['operations'],
    summary: 'Prometheus metrics, on the management port (METRICS_PORT) only',
    description:
      'Served by a listener of its own on METRICS_PORT (default 9465), on HOST, never on the public port (which answers ' +
      '404 here): scrape it from inside the cluster. Prometheus text exposition format 0.0.4.',
    security: [],
    servers: [
      {
        url: 'http://{host}:{port}',
        description: 'The api’s management listener',
        variables: {
          host: { default: 'localhost', description: 'An address of the api process (its pod in Kubernetes)' },
          port: { default: '9465', description: 'METRICS_PORT' },
        },
      },
    ],
    responses: {
      200: {
        description: 'The metrics (`text/plain; version=0.0.4; charset=utf-8`)',
        content: { 'text/plain': { schema: { type: 'string' } } },
      },
      400: { description: 'Node’s own answer to a request it cannot read; no body' },
      431: { description: 'Node’s own answer to a request head over 16 KiB; no body' },
      500: { description: 'The metrics could not be collected', content: { 'text/plain': { schema: { type: 'string' } } } },
    },
  },
};

/** The OpenAPI 3.1 document served at /docs/json, generated from the route schemas. */
export function openApiOptions(config: Config): FastifyDynamicSwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Access Control',
        version: '1.0.0',
        description: DESCRIPTION,
        // package.json's UNLICENSED: no licence is granted to anyone outside the owner.
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      },
      servers: [{ url: config.publicUrl.replace(/\/+$/, ''), description: 'This deployment (PUBLIC_URL)' }],
      tags: [
        { name: 'auth', description: 'Sign-in, sign-out and the keys that verify tokens' },
        { name: 'mfa', description: 'One’s second factors: an authenticator app (TOTP), passkeys (WebAuthn) and recovery codes' },
        { name: 'users', description: 'The user list, invitations by e-mail, and administering one user' },
        { name: 'invitations', description: 'What an invitee and an inviter do with an invitation' },
        { name: 'permissions', description: 'The permission list' },
        { name: 'roles', description: 'Roles and the permissions they grant' },
        { name: 'service-accounts', description: 'Other services’ own identities: their roles, secrets and public keys' },
        { name: 'audit', description: 'The audit trail: who did what to whom, when, from where' },
        { name: 'operations', description: 'Probes and metrics for the platform' },
      ],
      components: {
        securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transformObject: (documentObject) => {
      if (!('openapiObject' in documentObject)) return documentObject.swaggerObject;
      const document = documentObject.openapiObject;
      return { ...document, paths: { ...document.paths, '/metrics': METRICS_PATH } };
    },
  };
}
