import type { FastifyInstance } from 'fastify';
import { FORM_MEDIA } from '../form-body';
import { OAUTH_PATHS } from '../oauth/authorization-server-metadata';
import { OAuthError } from '../oauth/oauth-error';
import { answerAsOAuth } from '../oauth/oauth-scope';
import { REFRESH_TOKEN_MAX_LENGTH } from '../oauth/refresh-token.grant';
import { MAX_RESOURCE_LENGTH } from '../../../application/service-accounts/token-audiences';
import type { TokenGrant } from '../oauth/token-grant';
import { anyRequestProblems, problemRef } from '../schemas';

const oauthErrorSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'string',
      enum: ['invalid_request', 'invalid_client', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type', 'invalid_scope', 'invalid_target', 'temporarily_unavailable', 'server_error'],
      description: 'RFC 6749 §5.2 (and RFC 8707’s invalid_target)',
    },
    error_description: { type: 'string' },
  },
} as const;

const retryAfter = { 'retry-after': { type: 'string', description: 'Seconds to wait before trying again' } } as const;
const oauthError = (description: string, headers?: typeof retryAfter) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/json': { schema: oauthErrorSchema } },
});

/**
 * POST /oauth/token (RFC 6749 §3.2): a form body, a `grant_type` picked from `grants`, and every answer in
 * OAuth's own format: the token response, or `{error, error_description}` (§5.2), never problem+json.
 * Both carry `Cache-Control: no-store` and `Pragma: no-cache`. A grant is added by adding it to `grants`;
 * discovery publishes the same list.
 */
export function oauthTokenRoutes(deps: { grants: readonly TokenGrant[] }) {
  const grants = new Map(deps.grants.map((grant) => [grant.grantType, grant]));
  const supported = [...grants.keys()].join(', ');

  return async (app: FastifyInstance): Promise<void> => {
    // This scope reads form bodies and nothing else, and answers as OAuth does.
    answerAsOAuth(app);

    app.post(
      OAUTH_PATHS.token,
      {
        // The same budget as POST /v1/auth/refresh (its refused requests, per client address) for a refresh token; none
        // for client credentials, whose failures CLIENT_AUTH_RATE_LIMIT counts (as introspection's).
        config: { throttle: 'address-failures-unless-client', oauth: true },
        // Refused fields are answered by the handler as OAuth errors, not by the validator's 400.
        attachValidation: true,
        schema: {
          operationId: 'requestToken',
          tags: ['auth'],
          summary: 'OAuth 2.0 token endpoint (RFC 6749 §3.2): a form-encoded grant, answered in OAuth’s format',
          description:
            `Grants: ${supported}. \`grant_type=refresh_token\` with \`refresh_token\` exchanges a refresh token exactly as ` +
            'POST /v1/auth/refresh does (rotation, reuse detection, the same refusals), for a public client (no client ' +
            'authentication; a `client_id` sent is ignored). `grant_type=client_credentials` (RFC 6749 §4.4) gives a service account ' +
            'a token: the client authenticates with exactly one of HTTP Basic (`client_secret_basic`), `client_id` and ' +
            '`client_secret` (`client_secret_post`) or `client_assertion` (`private_key_jwt`, RFC 7523); an optional `scope` narrows ' +
            'the token to some of its role’s permissions, and an optional `resource` (RFC 8707) makes it a token for another service listed in ' +
            'RESOURCE_SERVERS (its `aud`; this API refuses it); the answer has no refresh token. Failed client authentications are ' +
            'counted per client address (CLIENT_AUTH_RATE_LIMIT a minute, every replica together; not per client id, which anyone may know). Unknown parameters are ignored (RFC 6749 §3.2); a parameter ' +
            'sent without a value is as if not sent (§3.1); one given twice is `invalid_request`. Errors are RFC 6749 §5.2 JSON, never problem+json (but for what Node’s parser ' +
            'refuses before any route runs). Published as `token_endpoint` in /.well-known/openid-configuration.',
          security: [],
          consumes: [FORM_MEDIA],
          body: {
            type: 'object',
            required: ['grant_type'],
            properties: {
              grant_type: { type: 'string', maxLength: 64, description: `One of: ${supported}` },
              refresh_token: { type: 'string', maxLength: REFRESH_TOKEN_MAX_LENGTH, description: 'grant_type=refresh_token: the refresh token to exchange' },
              client_id: {
                type: 'string',
                maxLength: 255,
                description: 'refresh_token: a public client’s id, ignored. client_credentials: the client id (with client_secret; optional with an assertion or HTTP Basic, and then the same)',
              },
              client_secret: { type: 'string', maxLength: 512, description: 'client_credentials with `client_secret_post`: the secret' },
              client_assertion_type: {
                type: 'string',
                maxLength: 128,
                description: 'client_credentials with `private_key_jwt`: `urn:ietf:params:oauth:client-assertion-type:jwt-bearer`',
              },
              client_assertion: {
                type: 'string',
                maxLength: 8192,
                description: 'client_credentials with `private_key_jwt` (RFC 7523): a JWT signed by a registered key, `iss` = `sub` = the client id, `aud` the token endpoint or the issuer, `exp` at most 5 minutes ahead, a `jti` used once',
              },
              scope: {
                type: 'string',
                maxLength: 2048,
                description: 'client_credentials: space-separated permission names, a subset of the account role’s (default: all of them)',
              },
              resource: {
                type: 'string',
                maxLength: MAX_RESOURCE_LENGTH,
                description:
                  'RFC 8707: the service the token is for, once. client_credentials: one of RESOURCE_SERVERS, exactly as listed, becomes the token’s `aud` ' +
                  '(this API then refuses the token); this service’s issuer, or none, gives its own audience. refresh_token: only this service’s issuer',
              },
            },
          },
          response: {
            200: {
              description: 'The tokens (RFC 6749 §5.1); `Cache-Control: no-store`',
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    required: ['access_token', 'token_type', 'expires_in'],
                    additionalProperties: false,
                    properties: {
                      access_token: { type: 'string', description: 'A JWT, as sign-in’s accessToken' },
                      token_type: { type: 'string', const: 'Bearer' },
                      expires_in: { type: 'integer', description: 'Seconds the access token lives (ACCESS_TOKEN_TTL)' },
                      refresh_token: { type: 'string', description: 'The next refresh token; the one sent is used up' },
                      scope: { type: 'string', description: 'Space-separated scopes the access token carries' },
                    },
                  },
                },
              },
            },
            ...anyRequestProblems,
            400: {
              description:
                'Refused (RFC 6749 §5.2): `invalid_request` (a parameter missing or repeated, a body that is not a form), ' +
                '`unsupported_grant_type`, `invalid_grant` (the refresh token is unknown, expired, used, revoked or its user’s sessions ended), ' +
                '`invalid_scope` (a scope not the role’s, or any scope with refresh_token), `invalid_target` (a `resource` not listed in RESOURCE_SERVERS, ' +
                'given twice, or naming another service with refresh_token); problem+json only when Node’s parser refused the request before any route ran',
              content: { 'application/json': { schema: oauthErrorSchema }, 'application/problem+json': { schema: problemRef } },
            },
            413: oauthError('The body is larger than BODY_LIMIT (`invalid_request`)'),
            429: oauthError(
              'Too many requests from this address, or too many failed client authentications from it (`invalid_request`); retry after Retry-After seconds',
              retryAfter,
            ),
            401: {
              description:
                '`invalid_client`: client authentication failed (unknown client, wrong or expired secret, an assertion that is not valid, expired, replayed or addressed elsewhere, a disabled account: one answer)',
              headers: { 'www-authenticate': { type: 'string', description: '`Basic realm="access-control", charset="UTF-8"`' } },
              content: { 'application/json': { schema: oauthErrorSchema } },
            },
            500: oauthError('An unexpected fault (`server_error`); the body says nothing about it'),
            503: oauthError('A backing service is unavailable (`temporarily_unavailable`); retry after Retry-After seconds', retryAfter),
          },
        },
      },
      async (request, reply) => {
        const parameters = formParameters(request.body);
        // The schema's refusals (a named parameter given twice or too long) are this route's invalid_request; what
        // they were is not echoed.
        if (request.validationError) throw new OAuthError('invalid_request', 'A parameter is missing, given more than once or too long');
        const grantType = parameters.grant_type;
        if (grantType === undefined) throw new OAuthError('invalid_request', 'grant_type is required');
        const grant = grants.get(grantType);
        if (!grant) throw new OAuthError('unsupported_grant_type', `grant_type must be one of: ${supported}`);
        return reply.type('application/json').send(await grant.exchange(parameters, request));
      },
    );
  };
}

/**
 * The form's fields as strings (one sent without a value was left out by the scope's parser, RFC 6749 §3.1); one given
 * twice is refused (§3.2: "MUST NOT be included more than once").
 */
export function formParameters(body: unknown): Record<string, string> {
  if (body === undefined || body === null) throw new OAuthError('invalid_request', `The body must be ${FORM_MEDIA} with grant_type`);
  const parameters: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, value] of Object.entries(body as Record<string, string | string[]>)) {
    // RFC 8707 allows several resources; a token here is for one service, so that is the resource's own refusal.
    if (Array.isArray(value) && name === 'resource') throw new OAuthError('invalid_target', 'One resource per token: ask for a token for each service');
    // The name is not echoed: the answer says nothing a caller did not know.
    if (Array.isArray(value)) throw new OAuthError('invalid_request', 'A parameter is given more than once');
    parameters[name] = value;
  }
  return parameters;
}
