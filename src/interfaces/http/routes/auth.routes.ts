import type { FastifyInstance } from 'fastify';
import type { SignInUseCase } from '../../../application/auth/sign-in.use-case';
import type { SignOutUseCase } from '../../../application/auth/sign-out.use-case';
import { PASSWORD_MAX_LENGTH } from '../../../domain/users/password-policy';
import { anyRequestProblems, bodyProblems, problemResponse, protectedProblems, throttledProblem, unavailableProblem } from '../schemas';

export function authRoutes(deps: { signIn: SignInUseCase; signOut: SignOutUseCase }) {
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
            'user get the same 401. Too many requests from one address: 429 with Retry-After.',
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
              required: ['name', 'username', 'email', 'role', 'accessToken'],
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

    app.post(
      '/auth/signout',
      {
        schema: {
          operationId: 'signOut',
          tags: ['auth'],
          summary: 'Sign out: every access token of the caller stops working at once, on every replica',
          description: 'Bumps the caller’s token version: all of its tokens (every device) are refused from now on.',
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
