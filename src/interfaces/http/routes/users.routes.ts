import type { FastifyInstance } from 'fastify';
import type { InviteUserUseCase } from '../../../application/invitations/invite-user.use-case';
import type { ListUsersUseCase, UserListQuery } from '../../../application/users/list-users.use-case';
import { ValidationError } from '../../../domain/shared/domain-error';
import { strictIntegerQuery } from '../plugins/strict-integers';
import { bodyProblems, PAGE_PARAMS, pageQueryProperties, permissionProblem, problemResponse, protectedProblems, throttledProblem } from '../schemas';

const FILTERS = ['role', 'status', 'email', 'q'] as const;
type Filter = (typeof FILTERS)[number];

type UsersQuery = { page: number; page_size: number } & Partial<Record<Filter | `filter[${Filter}]`, string>>;

const filterSchemas: Record<Filter, { type: 'string'; minLength?: 1; maxLength?: number; enum?: string[]; description: string }> = {
  role: { type: 'string', minLength: 1, maxLength: 64, description: 'Only users holding this role, given by name or `_id`; an unknown role is a 400 (ROLE_NOT_FOUND)' },
  status: { type: 'string', enum: ['pending', 'active', 'deactivated'], description: 'Only users in this status: `pending`, `active` or `deactivated`' },
  email: { type: 'string', minLength: 1, maxLength: 254, description: 'Only the user with this e-mail address, compared case-insensitively' },
  q: { type: 'string', minLength: 1, maxLength: 254, description: 'Only users whose name, username or e-mail starts with this, compared case-insensitively (no wildcards; trimmed)' },
};

const filterQueryProperties = Object.fromEntries(
  FILTERS.flatMap((name) => [
    [name, filterSchemas[name]],
    [`filter[${name}]`, { ...filterSchemas[name], description: `Another spelling of \`${name}\`` }],
  ]),
);

export function usersRoutes(deps: { listUsers: ListUsersUseCase; inviteUser: InviteUserUseCase }) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get<{ Querystring: UsersQuery }>(
      '/users',
      {
        preValidation: strictIntegerQuery(PAGE_PARAMS),
        schema: {
          operationId: 'listUsers',
          tags: ['users'],
          summary: 'List users, page by page, filtered (needs users:read)',
          description:
            'Filters combine: a user is listed when it matches every one given. `role` and `filter[role]` (likewise ' +
            '`status`, `email` and `q`) are two spellings of one parameter; giving both with different values is a 400, ' +
            'as is an empty value. `total_document` counts the users the filters match.',
          security: [{ bearerAuth: [] }],
          querystring: { type: 'object', properties: { ...pageQueryProperties, ...filterQueryProperties } },
          response: {
            200: {
              type: 'object',
              required: ['users', 'pagination'],
              properties: { users: { type: 'array', items: { $ref: 'User#' } }, pagination: { $ref: 'Pagination#' } },
            },
            ...protectedProblems,
            400: problemResponse('A page or filter value is not valid, two spellings of a filter disagree, or `role` names no role'),
            403: permissionProblem,
          },
        },
      },
      async (request) => {
        const actor = await app.authenticate(request);
        const query = request.query;
        const filter: UserListQuery = {};
        for (const name of FILTERS) {
          const value = oneOf(name, query[name], query[`filter[${name}]`]);
          if (value !== undefined) filter[name] = value;
        }
        return deps.listUsers.execute({ actor, filter, page: query.page, pageSize: query.page_size });
      },
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

function oneOf(field: string, plain: string | undefined, nested: string | undefined): string | undefined {
  if (plain !== undefined && nested !== undefined && plain !== nested) {
    throw new ValidationError([{ field, message: `"${field}" and "filter[${field}]" disagree` }]);
  }
  return plain ?? nested;
}
