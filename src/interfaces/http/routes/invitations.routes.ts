import type { FastifyInstance } from 'fastify';
import type { AcceptInvitationUseCase } from '../../../application/invitations/accept-invitation.use-case';
import type { ResendInvitationUseCase } from '../../../application/invitations/resend-invitation.use-case';
import type { RevokeInvitationUseCase } from '../../../application/invitations/revoke-invitation.use-case';
import { PASSWORD_MAX_LENGTH } from '../../../domain/users/password-policy';
import {
  anyRequestProblems,
  bodyProblems,
  permissionProblem,
  problemResponse,
  protectedProblems,
  throttledProblem,
  unavailableProblem,
  userIdParams,
} from '../schemas';

export function invitationsRoutes(deps: {
  acceptInvitation: AcceptInvitationUseCase;
  resendInvitation: ResendInvitationUseCase;
  revokeInvitation: RevokeInvitationUseCase;
}) {
  return async (app: FastifyInstance): Promise<void> => {
    app.post<{ Body: { token: string; name: string; username: string; password: string } }>(
      '/invitations/accept',
      {
        config: {
          public: true,
          // Anonymous, and it hashes a password, as sign-in does: it spends the same per-address budget.
          throttle: 'address', passwordWork: true,
          outcome: (status, metrics) => {
            if (status === 200) metrics.invitationAccepted();
          },
        },
        schema: {
          operationId: 'acceptInvitation',
          tags: ['invitations'],
          summary: 'Accept an invitation: set name, username and password, and join',
          description:
            'No bearer token: the single-use token from the invitation link authenticates. Unknown token → 404, ' +
            'used or expired → 410, username taken → 409. Afterwards the user signs in.',
          security: [],
          body: {
            type: 'object',
            required: ['token', 'name', 'username', 'password'],
            additionalProperties: false,
            properties: {
              token: { type: 'string', minLength: 1, maxLength: 200 },
              name: { type: 'string', maxLength: 200 },
              username: { type: 'string', maxLength: 64 },
              password: { type: 'string', maxLength: PASSWORD_MAX_LENGTH },
            },
          },
          response: {
            200: {
              type: 'object',
              required: ['_id', 'username'],
              properties: { _id: { type: 'string' }, username: { type: 'string' } },
            },
            ...anyRequestProblems,
            404: problemResponse('No invitation has this token'),
            409: problemResponse('The username is taken'),
            410: problemResponse('The invitation has expired, or has been used'),
            ...bodyProblems,
            429: throttledProblem,
            503: unavailableProblem,
          },
        },
      },
      async (request, reply) => {
        const { userId } = await deps.acceptInvitation.execute(request.body);
        return reply.header('cache-control', 'no-store').send({ _id: userId, username: request.body.username });
      },
    );

    app.post<{ Params: { id: string } }>(
      '/users/:id/invitation/resend',
      {
        // Each resend mails a new link, as an invite does: they share the inviter's budget.
        config: { throttle: 'inviter' },
        schema: {
          operationId: 'resendInvitation',
          tags: ['invitations'],
          summary: 'Send a pending user a new invitation link (needs users:invite)',
          description: 'The old link dies when the new one is issued; works after expiry. A joined user → 409.',
          security: [{ bearerAuth: [] }],
          params: userIdParams,
          response: {
            202: { description: 'Accepted; the mail follows', type: 'null' },
            ...protectedProblems,
            403: permissionProblem,
            404: problemResponse('No user has this id'),
            409: problemResponse('The user has joined already'),
            ...bodyProblems,
            429: throttledProblem,
          },
        },
      },
      async (request, reply) => {
        await deps.resendInvitation.execute({ actor: await app.authenticate(request), userId: request.params.id });
        return reply.code(202).send();
      },
    );

    app.delete<{ Params: { id: string } }>(
      '/users/:id/invitation',
      {
        schema: {
          operationId: 'revokeInvitation',
          tags: ['invitations'],
          summary: 'Revoke an invitation: the pending user and its link are gone (needs users:invite)',
          description: 'An invitee that was deactivated is removed all the same. A joined user → 409 USER_ALREADY_JOINED.',
          security: [{ bearerAuth: [] }],
          params: userIdParams,
          response: {
            204: { description: 'Revoked', type: 'null' },
            ...protectedProblems,
            403: permissionProblem,
            404: problemResponse('No user has this id'),
            409: problemResponse('The user has joined already'),
            ...bodyProblems,
          },
        },
      },
      async (request, reply) => {
        await deps.revokeInvitation.execute({ actor: await app.authenticate(request), userId: request.params.id });
        return reply.code(204).send();
      },
    );
  };
}
