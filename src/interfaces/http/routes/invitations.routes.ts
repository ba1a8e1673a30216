import type { FastifyInstance } from 'fastify';
import type { AcceptInvitationUseCase } from '../../../application/invitations/accept-invitation.use-case';
import type { ResendInvitationUseCase } from '../../../application/invitations/resend-invitation.use-case';
import type { RevokeInvitationUseCase } from '../../../application/invitations/revoke-invitation.use-case';
import { PASSWORD_MAX_LENGTH } from '../../../domain/users/password-policy';
import { problemRef, protectedProblems } from '../schemas';

const userIdParams = {
  type: 'object',
  required: ['id'],
  // Ids are ASCII (the column is ascii_bin): a non-ASCII id would make MariaDB refuse the comparison (500), so it is a 400.
  properties: { id: { type: 'string', minLength: 1, maxLength: 36, pattern: '^[\\x20-\\x7e]+$' } },
} as const;

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
          throttle: 'address',
          outcome: (status, metrics) => {
            if (status === 200) metrics.invitationAccepted();
          },
        },
        schema: {
          tags: ['invitations'],
          summary: 'Accept an invitation: set name, username and password, and join',
          description:
            'No bearer token: the single-use token from the invitation link authenticates. Unknown token → 404, ' +
            'used or expired → 410, username taken → 409. Afterwards the user signs in.',
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
            400: problemRef,
            404: problemRef,
            409: problemRef,
            410: problemRef,
            413: problemRef,
            415: problemRef,
            429: problemRef,
            503: problemRef,
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
          tags: ['invitations'],
          summary: 'Send a pending user a new invitation link (needs users:invite)',
          description: 'The old link dies when the new one is issued; works after expiry. A joined user → 409.',
          security: [{ bearerAuth: [] }],
          params: userIdParams,
          response: {
            202: { description: 'Accepted; the mail follows', type: 'null' },
            ...protectedProblems,
            404: problemRef,
            409: problemRef,
            429: problemRef,
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
          tags: ['invitations'],
          summary: 'Revoke an invitation: the pending user and its link are gone (needs users:invite)',
          security: [{ bearerAuth: [] }],
          params: userIdParams,
          response: { 204: { description: 'Revoked', type: 'null' }, ...protectedProblems, 404: problemRef, 409: problemRef },
        },
      },
      async (request, reply) => {
        await deps.revokeInvitation.execute({ actor: await app.authenticate(request), userId: request.params.id });
        return reply.code(204).send();
      },
    );
  };
}
