import type { FastifyInstance } from 'fastify';
import type { RefreshSessionUseCase } from '../../../application/auth/refresh-session.use-case';
import type { SignInUseCase } from '../../../application/auth/sign-in.use-case';
import type { SignOutUseCase } from '../../../application/auth/sign-out.use-case';
import { PASSWORD_MAX_LENGTH } from '../../../domain/users/password-policy';
import { anyRequestProblems, bodyProblems, problemResponse, protectedProblems, throttledProblem, unavailableProblem } from '../schemas';
import { sessionTokensResponse } from './session-tokens.schema';

/** Opaque refresh tokens are 43 characters of base64url; anything longer is refused before any lookup. */
const REFRESH_TOKEN_MAX_LENGTH = 128;

export function authRoutes(deps: { signIn: SignInUseCase; signOut: SignOutUseCase; refreshSession: RefreshSessionUseCase }) {
  return async (app: FastifyInstance): Promise<void> => {
    app.post<{ Body: { username: string; password: string } }>(
      '/auth/signin',
      {
        config: {
          public: true,
          throttle: 'address',
          outcome: (status, metrics) => {
            if (status === 200) metrics.signIn('success');
            else if (status === 401) metrics.signIn('failure');
            else if (status === 429) metrics.signIn('throttled');
          },
        },
        schema: {
          operationId: 'signIn',
          tags: ['auth'],
          summary: 'Sign in with username and password',
          description:
            'Returns an EdDSA-signed JWT access token. Unknown user, wrong password, a locked account and a not-yet-joined ' +
            'user get the same 401. Too many requests from one address: 429 with Retry-After. Besides the contract’s ' +
            'fields the answer carries `refreshToken`, exchanged at POST /v1/auth/refresh for new tokens.',
          security: [],
          body: {
            type: 'object',
            required: ['username', 'password'],
            additionalProperties: false,
            properties: {
              username: { type: 'string', minLength: 1, maxLength: 254 },
              // Refused before any hashing work.
              password: { type: 'string', minLength: 1, maxLength: PASSWORD_MAX_LENGTH },
            },
          },
          response: {
            200: {
              type: 'object',
              required: ['name', 'username', 'email', 'role', 'accessToken', 'refreshToken'],
              properties: {
                name: { type: 'string' },
                username: { type: 'string' },
                email: { type: 'string' },
                role: {
                  type: 'object',
                  required: ['name', 'permissions'],
                  properties: { name: { type: 'string' }, permissions: { type: 'array', items: { type: 'string' } } },
                },
                accessToken: { type: 'string' },
                refreshToken: { type: 'string', description: 'Opaque; exchanged once at POST /v1/auth/refresh for new tokens' },
              },
            },
            ...anyRequestProblems,
            401: problemResponse('Unknown user, wrong password, locked account or not joined yet: one answer for all'),
            ...bodyProblems,
            429: throttledProblem,
            503: unavailableProblem,
          },
        },
      },
      async (request, reply) => {
        const result = await deps.signIn.execute(request.body);
        return reply.header('cache-control', 'no-store').send(result);
      },
    );

    app.post<{ Body: { refreshToken: string } }>(
      '/auth/refresh',
      {
        config: { public: true, throttle: 'address' },
        schema: {
          operationId: 'refreshSession',
          tags: ['auth'],
          summary: 'Exchange a refresh token for a new access token and the next refresh token',
          description:
            'Each refresh token works once (rotation). A used one presented again means two parties hold it: every token ' +
            'of its sign-in is revoked (RFC 9700 §4.14.2; see REFRESH_TOKEN_REUSE_GRACE). Unknown, expired, used and ' +
            'revoked tokens, and tokens of a user who signed out, changed the password or was deactivated or deleted since, ' +
            'all get the same 401.',
          security: [],
          body: {
            type: 'object',
            required: ['refreshToken'],
            additionalProperties: false,
            properties: { refreshToken: { type: 'string', minLength: 1, maxLength: REFRESH_TOKEN_MAX_LENGTH } },
          },
          response: {
            200: sessionTokensResponse('The new tokens; the refresh token sent is used up'),
            ...anyRequestProblems,
            401: problemResponse('The refresh token cannot be exchanged (whatever the reason: one answer for all); sign in again'),
            ...bodyProblems,
            429: throttledProblem,
            503: unavailableProblem,
          },
        },
      },
      async (request, reply) => {
        const tokens = await deps.refreshSession.execute({ refreshToken: request.body.refreshToken });
        return reply.header('cache-control', 'no-store').send(tokens);
      },
    );

    app.post(
      '/auth/signout',
      {
        schema: {
          operationId: 'signOut',
          tags: ['auth'],
          summary: 'Sign out: every access and refresh token of the caller stops working at once, on every replica',
          description: 'Bumps the caller’s token version: all of its tokens (every device), refresh tokens included, are refused from now on.',
          security: [{ bearerAuth: [] }],
          response: { 204: { description: 'Signed out', type: 'null' }, ...protectedProblems, ...bodyProblems },
        },
      },
      async (request, reply) => {
        await deps.signOut.execute({ actor: await app.authenticate(request) });
        return reply.code(204).send();
      },
    );
  };
}
