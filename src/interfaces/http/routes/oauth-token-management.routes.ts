import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { IntrospectTokenUseCase } from '../../../application/auth/introspect-token.use-case';
import type { RevokeTokenUseCase } from '../../../application/auth/revoke-token.use-case';
import { PermissionDeniedError } from '../../../domain/permissions/permission-denied.error';
import { FORM_MEDIA } from '../form-body';
import { OAUTH_PATHS } from '../oauth/authorization-server-metadata';
import { authenticateClient, CLIENT_AUTH_METHODS, type ClientAuthenticationDeps, JWT_BEARER_ASSERTION, presentedClient } from '../oauth/client-authentication';
import { OAuthError } from '../oauth/oauth-error';
import { answerAsOAuth } from '../oauth/oauth-scope';
import { preflight } from '../plugins/any-origin';
import { anyRequestProblems, problemRef } from '../schemas';
import { formParameters } from './oauth-token.routes';

/** What each endpoint takes (RFC 7591 names), as discovery publishes them. `none`: a public client revoking a token it holds. */
export const REVOCATION_AUTH_METHODS = ['none', ...CLIENT_AUTH_METHODS] as const;
export const INTROSPECTION_AUTH_METHODS = [...CLIENT_AUTH_METHODS] as const;

const oauthErrorSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'string',
      enum: ['invalid_request', 'invalid_client', 'unauthorized_client', 'unsupported_token_type', 'temporarily_unavailable', 'server_error'],
      description: 'RFC 6749 §5.2, RFC 7009 §2.2.1',
    },
    error_description: { type: 'string' },
  },
} as const;

const retryAfter = { 'retry-after': { type: 'string', description: 'Seconds to wait before trying again' } } as const;
const oauthError = (description: string, headers?: Record<string, unknown>) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/json': { schema: oauthErrorSchema } },
});
const bodyTooLarge = oauthError('The body is larger than BODY_LIMIT (`invalid_request`)');
const wwwAuthenticate = { 'www-authenticate': { type: 'string', description: 'Basic realm="access-control", charset="UTF-8"' } } as const;

/** The form both endpoints read: the token, its hint, and the client's credentials (RFC 6749 §2.3). Other fields are ignored. */
const formSchema = {
  type: 'object',
  required: ['token'],
  properties: {
    token: { type: 'string', maxLength: 16384, description: 'The token: an access token (a JWT) or a refresh token' },
    token_type_hint: {
      type: 'string',
      maxLength: 64,
      description: '`access_token` or `refresh_token`; ignored: the token’s form tells its type (RFC 7009 §2.1, RFC 7662 §2.1 allow it)',
    },
    client_id: { type: 'string', maxLength: 255, description: 'client_secret_post: the service account’s client id (alone: a public client, ignored)' },
    client_secret: { type: 'string', maxLength: 512, description: 'client_secret_post: its secret' },
    client_assertion_type: { type: 'string', maxLength: 128, description: `private_key_jwt: ${JWT_BEARER_ASSERTION}` },
    client_assertion: { type: 'string', maxLength: 8192, description: 'private_key_jwt: the signed assertion (RFC 7523)' },
  },
} as const;

const introspectionSchema = {
  type: 'object',
  required: ['active'],
  additionalProperties: false,
  properties: {
    active: { type: 'boolean', description: 'Whether the token is valid now; nothing else is said of an inactive one' },
    sub: { type: 'string', description: 'The user’s id, or the service account’s' },
    client_id: { type: 'string', description: 'A service’s token: its client id' },
    scope: { type: 'string', description: 'The permissions of the subject’s role now, space-separated (none for an enrollment-only token)' },
    exp: { type: 'integer', description: 'When it expires (seconds since the epoch)' },
    iat: { type: 'integer', description: 'When it was issued (seconds since the epoch)' },
    iss: { type: 'string', description: 'The issuer (every token’s `iss`)' },
    aud: { type: 'string', description: 'An access token’s audience' },
    token_type: { type: 'string', enum: ['Bearer'], description: '`Bearer` (RFC 7662 §2.2: the token endpoint’s `token_type`); only an access token is ever active' },
    username: { type: 'string', description: 'A user’s token: the user’s username' },
    mfa_enrollment: {
      type: 'boolean',
      enum: [true],
      description:
        'A user’s token that may only enroll a second factor (MFA_REQUIRED_PERMISSIONS): its scope is empty, and a resource server grants it nothing',
    },
  },
} as const;

export interface TokenManagementDeps extends ClientAuthenticationDeps {
  revokeToken: RevokeTokenUseCase;
  introspectToken: IntrospectTokenUseCase;
}

/**
 * POST /oauth/revoke (RFC 7009) and POST /oauth/introspect (RFC 7662): form bodies, client authentication
 * as at the token endpoint, and every answer in OAuth's format with `Cache-Control: no-store`: errors are
 * RFC 6749 §5.2 JSON, never problem+json (docs/DECISIONS.md, "Revocation and introspection").
 */
export function oauthTokenManagementRoutes(deps: TokenManagementDeps) {
  return async (app: FastifyInstance): Promise<void> => {
    answerAsOAuth(app, (error) =>
      error instanceof PermissionDeniedError
        ? new OAuthError('unauthorized_client', 'This client may not introspect tokens (it needs tokens:introspect)', 403)
        : undefined,
    );

    /** The form's fields, the client's credentials checked; the schema's refusals are invalid_request. */
    const readForm = (request: FastifyRequest): Record<string, string> => {
      if (request.body === undefined || request.body === null) throw new OAuthError('invalid_request', `The body must be ${FORM_MEDIA} with token`);
      const parameters = formParameters(request.body);
      if (request.validationError) throw new OAuthError('invalid_request', 'A parameter is missing, given more than once or too long');
      if (!parameters.token) throw new OAuthError('invalid_request', 'token is required');
      return parameters;
    };

    // A browser app revokes its user's token on sign-out from its own origin (CORS): no cookie is read here, the token
    // is the proof. Introspection stays same-origin: its callers are servers.
    preflight(app, OAUTH_PATHS.revocation, 'POST', { oauth: true });
    app.post(
      OAUTH_PATHS.revocation,
      {
        // Anyone holding a token may revoke it: the per-address budget, spent before the body is read.
        config: { throttle: 'address', oauth: true, anyOrigin: true },
        attachValidation: true,
        schema: {
          operationId: 'revokeToken',
          tags: ['auth'],
          summary: 'OAuth 2.0 token revocation (RFC 7009): a refresh token’s whole sign-in, or a user’s sessions by an access token',
          description:
            'A refresh token: every token of its family (its sign-in) is revoked, whatever state it is in. A user’s access token ' +
            'that is valid now: the user is signed out everywhere (every access and refresh token), as POST /v1/auth/signout ' +
            'with it; an access token cannot be ended alone. A service’s access token: `unsupported_token_type`. An unknown, ' +
            'expired or already invalid token: 200, nothing done (RFC 7009 §2.2). Client authentication is optional: a public ' +
            'client revokes a token it holds with none; credentials given must be valid (`invalid_client`). Any web origin may ' +
            'call it (`Access-Control-Allow-Origin: *`, no credentials), so a browser app can revoke on sign-out. ' +
            'Published as `revocation_endpoint`.',
          security: [],
          consumes: [FORM_MEDIA],
          body: formSchema,
          response: {
            200: { description: 'Revoked, or nothing to revoke (the same answer); no body', type: 'null' },
            ...anyRequestProblems,
            400: {
              description:
                'Refused: `invalid_request` (no token, a parameter repeated, more than one client authentication, a body that is not a form), ' +
                '`unsupported_token_type` (a service’s access token); problem+json only when Node’s parser refused the request',
              content: { 'application/json': { schema: oauthErrorSchema }, 'application/problem+json': { schema: problemRef } },
            },
            401: oauthError('`invalid_client`: the client credentials given are not valid', wwwAuthenticate),
            413: bodyTooLarge,
            429: oauthError('Too many requests from this address, or failed client authentications (`invalid_request`); retry after Retry-After seconds', retryAfter),
            500: oauthError('An unexpected fault (`server_error`); the body says nothing about it'),
            503: oauthError('A backing service is unavailable (`temporarily_unavailable`); retry after Retry-After seconds', retryAfter),
          },
        },
      },
      async (request, reply) => {
        const parameters = readForm(request);
        const client = presentedClient(parameters, request);
        if (client.method !== 'none') await authenticateClient(deps, client, request);
        const outcome = await deps.revokeToken.execute({ token: parameters.token! });
        if (outcome === 'unsupported') {
          throw new OAuthError('unsupported_token_type', "A service's access token cannot be revoked: disable the service account (its tokens stay ended when it is enabled again) or delete it");
        }
        return reply.code(200).send();
      },
    );

    app.post(
      OAUTH_PATHS.introspection,
      {
        config: { oauth: true },
        attachValidation: true,
        schema: {
          operationId: 'introspectToken',
          tags: ['auth'],
          summary: 'OAuth 2.0 token introspection (RFC 7662): whether a token is valid now, for a service account holding tokens:introspect',
          description:
            'Active when the API would accept the token as a bearer token at this moment, on any replica: an access token whose ' +
            'signature and claims verify and whose user is still signed in at its token version (no sign-out, password change, ' +
            'deactivation or deletion since). Anything else, a refresh token included (the API refuses it), is ' +
            '`{"active": false}`, whatever the reason. The caller is a service account authenticated by its client credentials ' +
            '(`client_secret_basic`, `client_secret_post`, `private_key_jwt`) whose role holds `tokens:introspect`. ' +
            'Published as `introspection_endpoint`.',
          security: [],
          consumes: [FORM_MEDIA],
          body: formSchema,
          response: {
            200: {
              description: 'The token’s state (RFC 7662 §2.2); `Cache-Control: no-store`',
              content: { 'application/json': { schema: introspectionSchema } },
            },
            ...anyRequestProblems,
            400: {
              description:
                'Refused: `invalid_request` (no token, a parameter repeated, more than one client authentication, a body that is not a form); ' +
                'problem+json only when Node’s parser refused the request',
              content: { 'application/json': { schema: oauthErrorSchema }, 'application/problem+json': { schema: problemRef } },
            },
            401: oauthError('`invalid_client`: no client credentials, or not valid ones', wwwAuthenticate),
            403: oauthError('`unauthorized_client`: the service account’s role lacks tokens:introspect'),
            413: bodyTooLarge,
            429: oauthError('Too many failed client authentications from this address (`invalid_request`); retry after Retry-After seconds', retryAfter),
            500: oauthError('An unexpected fault (`server_error`); the body says nothing about it'),
            503: oauthError('A backing service is unavailable (`temporarily_unavailable`); retry after Retry-After seconds', retryAfter),
          },
        },
      },
      async (request, reply) => {
        const parameters = readForm(request);
        const caller = await authenticateClient(deps, presentedClient(parameters, request), request);
        const answer = await deps.introspectToken.execute({ caller, token: parameters.token! });
        return reply.type('application/json').send(answer);
      },
    );
  };
}
