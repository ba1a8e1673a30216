import type { FastifyInstance } from 'fastify';
import type { ChangeOwnPasswordUseCase } from '../../../application/auth/change-own-password.use-case';
import type { GetOwnAccountUseCase } from '../../../application/auth/get-own-account.use-case';
import { PASSWORD_MAX_LENGTH } from '../../../domain/users/password-policy';
import { bodyProblems, problemResponse, protectedProblems, throttledProblem } from '../schemas';
import { sessionTokensResponse } from './session-tokens.schema';

const gone = problemResponse(
  'The account was deleted or deactivated meanwhile (`USER_NOT_FOUND`), or the token is a service account’s, which has no user account (`NOT_A_USER`)',
);

/** The caller's own account: who am I, and changing one's own password. No permission beyond a valid token. */
export function accountRoutes(deps: { getOwnAccount: GetOwnAccountUseCase; changeOwnPassword: ChangeOwnPasswordUseCase }) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get(
      '/me',
      {
        // An enrollment-only token (MFA_REQUIRED_PERMISSIONS, #24) may read who it is.
        config: { mfaEnrollment: true },
        schema: {
          operationId: 'getOwnAccount',
          tags: ['auth'],
          summary: 'The signed-in user, as GET /v1/users/{id} shows one (needs no permission)',
          security: [{ bearerAuth: [] }],
          response: {
            200: {
              description: 'The caller’s own user; `ETag` is its version',
              headers: { etag: { type: 'string', description: 'The user’s version, `"<version>"`' } },
              $ref: 'UserDetail#',
            },
            ...protectedProblems,
            404: gone,
          },
        },
      },
      async (request, reply) => {
        const { user, version } = await deps.getOwnAccount.execute({ actor: await app.authenticate(request) });
        return reply.header('etag', `"${version}"`).header('cache-control', 'no-store').send(user);
      },
    );

    app.post<{ Body: { current_password: string; new_password: string } }>(
      '/me/password',
      {
        config: { throttle: 'address', passwordWork: true },
        schema: {
          operationId: 'changeOwnPassword',
          tags: ['auth'],
          summary: 'Change one’s own password: every other token of the caller ends',
          description:
            '`current_password` is checked as a sign-in checks a password, and counts against the same lockout; a wrong ' +
            'one (or a locked account) is 400 `WRONG_CURRENT_PASSWORD`. `new_password` follows the policy of accepting an ' +
            'invitation (12 to 128 characters, not a common password). Every access and refresh token of the user ends, on ' +
            'every replica; the answer carries a new access token and a new refresh token, so this session continues.',
          security: [{ bearerAuth: [] }],
          body: {
            type: 'object',
            required: ['current_password', 'new_password'],
            additionalProperties: false,
            properties: {
              // Refused before any hashing work.
              current_password: { type: 'string', minLength: 1, maxLength: PASSWORD_MAX_LENGTH },
              new_password: { type: 'string', maxLength: PASSWORD_MAX_LENGTH },
            },
          },
          response: {
            200: sessionTokensResponse('Changed: the tokens of this session (every other token of the user is refused from now on)'),
            ...protectedProblems,
            400: problemResponse(
              'Wrong current password or locked account (`WRONG_CURRENT_PASSWORD`), or a new password the policy refuses (`VALIDATION_FAILED`, the field in `errors`)',
            ),
            404: gone,
            409: problemResponse('The user was changed by another request meanwhile: retry'),
            ...bodyProblems,
            429: throttledProblem,
          },
        },
      },
      async (request, reply) => {
        const tokens = await deps.changeOwnPassword.execute({
          actor: await app.authenticate(request),
          currentPassword: request.body.current_password,
          newPassword: request.body.new_password,
        });
        return reply.header('cache-control', 'no-store').send(tokens);
      },
    );
  };
}
