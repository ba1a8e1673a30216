import type { FastifyInstance } from 'fastify';
import type { InviteUserUseCase } from '../../../application/invitations/invite-user.use-case';
import type { ListUsersUseCase } from '../../../application/users/list-users.use-case';
import { strictIntegerQuery } from '../plugins/strict-integers';
import { bodyProblems, PAGE_PARAMS, pageQueryProperties, permissionProblem, problemResponse, protectedProblems, throttledProblem } from '../schemas';

export function usersRoutes(deps: { listUsers: ListUsersUseCase; inviteUser: InviteUserUseCase }) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get<{ Querystring: { page: number; page_size: number } }>(
      '/users',
      {
        preValidation: strictIntegerQuery(PAGE_PARAMS),
        schema: {
          operationId: 'listUsers',
          tags: ['users'],
          summary: 'List users, page by page (needs users:read)',
          security: [{ bearerAuth: [] }],
          querystring: { type: 'object', properties: pageQueryProperties },
          response: {
            200: {
              type: 'object',
              required: ['users', 'pagination'],
              properties: { users: { type: 'array', items: { $ref: 'User#' } }, pagination: { $ref: 'Pagination#' } },
            },
            ...protectedProblems,
            403: permissionProblem,
          },
        },
      },
      async (request) =>
        deps.listUsers.execute({
          actor: await app.authenticate(request),
          page: request.query.page,
          pageSize: request.query.page_size,
        }),
    );

    app.post<{ Body: { email: string; role?: string; name?: string } }>(
      '/users/invite',
      {
        config: {
          throttle: 'inviter',
          outcome: (status, metrics) => {
            if (status === 201) metrics.invitationCreated();
          },
        },
        schema: {
          operationId: 'inviteUser',
          tags: ['users'],
          summary: 'Invite a user by e-mail (needs users:invite)',
          description:
            'Creates a pending user and records a UserInvited event in the same transaction. ' +
            '`role` is a role name or _id (default member) and may not hold permissions the inviter lacks.',
          security: [{ bearerAuth: [] }],
          body: {
            type: 'object',
            required: ['email'],
            additionalProperties: false,
            properties: {
              email: { type: 'string', maxLength: 254 },
              role: { type: 'string', minLength: 1, maxLength: 64 },
              name: { type: 'string', maxLength: 200 },
            },
          },
          response: {
            201: {
              description: 'Invited; empty body. `Location` names the new user (its id serves resend and revoke).',
              type: 'null',
              headers: { location: { type: 'string', description: '/v1/users/{id} of the invited user' } },
            },
            ...protectedProblems,
            400: problemResponse('The body is not valid, names an unknown role or a field this route does not take'),
            403: problemResponse('The inviter lacks users:invite, or a permission the role would grant'),
            409: problemResponse('The e-mail belongs to a user already, pending or joined'),
            ...bodyProblems,
            429: throttledProblem,
          },
        },
      },
      async (request, reply) => {
        const { userId } = await deps.inviteUser.execute({ actor: await app.authenticate(request), ...request.body });
        return reply.code(201).header('location', `/v1/users/${userId}`).send();
      },
    );
  };
}
