import type { FastifyInstance } from 'fastify';
import { type AuthorizationServerMetadata, issuerPathForms } from '../oauth/authorization-server-metadata';
import { preflight } from '../plugins/any-origin';
import { anyRequestProblems } from '../schemas';

const stringList = (description: string) => ({ type: 'array', items: { type: 'string' }, description }) as const;

/** RFC 8414 §2 / OpenID Connect Discovery §3, as far as this service publishes them. */
const metadataSchema = {
  type: 'object',
  required: [
    'issuer',
    'jwks_uri',
    'token_endpoint',
    'grant_types_supported',
    'token_endpoint_auth_methods_supported',
    'response_types_supported',
    'subject_types_supported',
    'id_token_signing_alg_values_supported',
    'claims_supported',
  ],
  additionalProperties: false,
  properties: {
    issuer: { type: 'string', description: 'The `iss` of every token (JWT_ISSUER, default PUBLIC_URL), character for character' },
    jwks_uri: { type: 'string', format: 'uri', description: 'GET /.well-known/jwks.json under PUBLIC_URL' },
    token_endpoint: { type: 'string', format: 'uri', description: 'POST /oauth/token under PUBLIC_URL' },
    grant_types_supported: stringList('The grants the token endpoint takes'),
    token_endpoint_auth_methods_supported: stringList('How a client authenticates at the token endpoint (`none`: a public client)'),
    token_endpoint_auth_signing_alg_values_supported: stringList('The algorithms a `private_key_jwt` client assertion may be signed with'),
    scopes_supported: stringList('The scopes the client credentials grant takes: the permission names'),
    revocation_endpoint: { type: 'string', format: 'uri', description: 'POST /oauth/revoke under PUBLIC_URL (RFC 7009)' },
    revocation_endpoint_auth_methods_supported: stringList('How a client authenticates at the revocation endpoint (`none`: a public client revoking a refresh token it holds)'),
    introspection_endpoint: { type: 'string', format: 'uri', description: 'POST /oauth/introspect under PUBLIC_URL (RFC 7662)' },
    introspection_endpoint_auth_methods_supported: stringList('How a service account authenticates at the introspection endpoint'),
    revocation_endpoint_auth_signing_alg_values_supported: stringList('The algorithms a `private_key_jwt` client assertion may be signed with at the revocation endpoint'),
    introspection_endpoint_auth_signing_alg_values_supported: stringList('The algorithms a `private_key_jwt` client assertion may be signed with at the introspection endpoint'),
    response_types_supported: stringList('Empty: there is no authorization endpoint'),
    subject_types_supported: stringList('`public`: `sub` is the user’s id'),
    id_token_signing_alg_values_supported: stringList(
      'The `alg` of every key in the JWK set (current and retired): what verifiers that read discovery allow for access tokens',
    ),
    claims_supported: stringList('The claims of an access token'),
    service_documentation: { type: 'string', format: 'uri', description: 'This API’s documentation' },
  },
} as const;

/**
 * The metadata of the authorization server at the paths client stacks look for it, given only the issuer
 * URL: RFC 8414's and OpenID Discovery's at the root and, for an issuer with a path, the path-inserted and
 * path-appended forms. Public, cacheable as the JWK set is (its algorithms follow the keys).
 */
export function discoveryRoutes(deps: { metadata: AuthorizationServerMetadata }) {
  return async (app: FastifyInstance): Promise<void> => {
    const serve = (url: string, operationId: string, summary: string, hide = false) => {
      // Any web origin may read it (CORS): a browser app discovers the endpoints as any client does.
      preflight(app, url, 'GET');
      app.get(
        url,
        {
          config: { anyOrigin: true },
          schema: {
            operationId,
            tags: ['auth'],
            summary,
            description:
              'The issuer, where its keys and token endpoint are, and what they support. `issuer` equals every token’s `iss`. ' +
              'Cacheable for 5 minutes, as the key set. Any web origin may read it (`Access-Control-Allow-Origin: *`, no credentials).',
            security: [],
            ...(hide ? { hide: true } : {}),
            response: { 200: { description: 'The metadata', content: { 'application/json': { schema: metadataSchema } } }, ...anyRequestProblems },
          },
        },
        async (_request, reply) => reply.header('cache-control', 'public, max-age=300').send(deps.metadata),
      );
    };

    serve('/.well-known/oauth-authorization-server', 'getAuthorizationServerMetadata', 'OAuth 2.0 authorization server metadata (RFC 8414)');
    serve('/.well-known/openid-configuration', 'getOpenIdConfiguration', 'The same metadata where OpenID Connect Discovery clients look for it');
    // An issuer with a path: the same document at the forms clients derive from it (not in the OpenAPI document, which
    // would change with the deployment's issuer).
    for (const [i, url] of issuerPathForms(deps.metadata.issuer).entries()) {
      serve(url, `getAuthorizationServerMetadataForIssuerPath${i}`, 'The metadata at a form derived from the issuer’s path', true);
    }
  };
}
