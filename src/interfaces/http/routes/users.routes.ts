import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { InviteUserUseCase } from '../../../application/invitations/invite-user.use-case';
import type { ListUsersUseCase, UserListQuery } from '../../../application/users/list-users.use-case';
import { ValidationError } from '../../../domain/shared/domain-error';
import { strictIntegerQuery } from '../plugins/strict-integers';
import { bodyProblems, PAGE_PARAMS, pageQueryProperties, permissionProblem, problemResponse, protectedProblems, throttledProblem } from '../schemas';
import { apiPath, linkNext, nextPagePath, type PublicPaths } from './public-paths';

const FILTERS = ['role', 'status', 'email', 'q'] as const;
type Filter = (typeof FILTERS)[number];

type UsersQuery = { page: number; page_size: number; after?: string } & Partial<Record<Filter | `filter[${Filter}]`, string>>;

const afterSchema = {
  type: 'string',
  minLength: 36,
  maxLength: 36,
  pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
  description:
    'The cursor form, for a walk of every user (a sync, an export): the `page_size` users after this user id, in the ' +
    "list's order. Pass the last `_id` of each page (or follow `next`); users added during the walk never shift it. " +
    'Any id shaped as a user id is taken, an erased user\'s included. Not with `page` (a 400).',
} as const;

/** A cursor form and a page number at once are a 400: the page would say one place, the cursor another. */
async function pageOrCursor(request: FastifyRequest): Promise<void> {
  const query = request.query as Record<string, unknown>;
  if (query.after !== undefined && query.page !== undefined) {
    throw new ValidationError([{ field: 'after', message: 'give "after" or "page", not both' }]);
  }
}

const filterSchemas: Record<Filter, { type: 'string'; minLength?: 1; maxLength?: number; enum?: string[]; description: string }> = {
  role: { type: 'string', minLength: 1, maxLength: 64, description: 'Only users holding this role, given by name or `_id`; an unknown role is a 400 (ROLE_NOT_FOUND)' },
  status: { type: 'string', enum: ['pending', 'active', 'deactivated'], description: 'Only users in this status: `pending`, `active` or `deactivated`' },
  email: { type: 'string', minLength: 1, maxLength: 254, description: 'Only the user with this e-mail address, compared case-insensitively and with its domain in any spelling (capitals, full-width letters, its xn-- form)' },
  q: { type: 'string', minLength: 1, maxLength: 254, description: 'Only users whose name, username or e-mail starts with this, compared case-insensitively (no wildcards; trimmed)' },
};

const filterQueryProperties = Object.fromEntries(
  FILTERS.flatMap((name) => [
    [name, filterSchemas[name]],
    [`filter[${name}]`, { ...filterSchemas[name], description: `Another spelling of \`${name}\`` }],
  ]),
);

export function usersRoutes(deps: { listUsers: ListUsersUseCase; inviteUser: InviteUserUseCase; paths: PublicPaths }) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get<{ Querystring: UsersQuery }>(
      '/users',
      {
        preValidation: [strictIntegerQuery(PAGE_PARAMS), pageOrCursor],
        schema: {
          operationId: 'listUsers',
          tags: ['users'],
          summary: 'List users, page by page, filtered (needs users:read)',
          description:
            'Filters combine: a user is listed when it matches every one given. `role` and `filter[role]` (likewise ' +
            '`status`, `email` and `q`) are two spellings of one parameter; giving both with different values is a 400, ' +
            'as is an empty value. `total_document` counts the users the filters match. Any page costs what the first ' +
            'does. To read every user, walk by cursor: `after` the last `_id` of the page before; each answer names ' +
            'the next page in `next` (and a `Link` header, rel="next", which every page of the page form carries too).',
          security: [{ bearerAuth: [] }],
          // A parameter it does not name is a 400 naming it: a mistyped filter (`filter[stauts]`) never lists every user.
          querystring: { type: 'object', additionalProperties: false, properties: { ...pageQueryProperties, after: afterSchema, ...filterQueryProperties } },
          response: {
            200: {
              type: 'object',
              required: ['users', 'pagination'],
              headers: { link: { type: 'string', description: 'RFC 8288: `<…?after=…>; rel="next"` when users follow this page' } },
              properties: {
                users: { type: 'array', items: { $ref: 'User#' } },
                pagination: { $ref: 'Pagination#' },
                next: {
                  type: 'string',
                  description:
                    'Cursor form only: the path (under PUBLIC_URL’s path) and query of the next page (same filters and `page_size`), present while users ' +
                    'follow; `pagination.page` is then the page the first user shown falls on',
                },
              },
            },
            ...protectedProblems,
            400: problemResponse('A page, cursor or filter value is not valid, `page` and `after` are both given, two spellings of a filter disagree, or `role` names no role'),
            403: permissionProblem,
            422: problemResponse('`q` matches too many users to count within SEARCH_TIME_LIMIT (MySQL/MariaDB): SEARCH_TOO_BROAD; type more of it'),
          },
        },
      },
      async (request, reply) => {
        const actor = await app.authenticate(request);
        const query = request.query;
        const filter: UserListQuery = {};
        for (const name of FILTERS) {
          const value = oneOf(name, query[name], query[`filter[${name}]`]);
          if (value !== undefined) filter[name] = value;
        }
        const { nextAfter, ...result } = await deps.listUsers.execute({ actor, filter, page: query.page, pageSize: query.page_size, after: query.after });
        if (nextAfter === undefined) return result;
        const next = nextPagePath(deps.paths, '/v1/users', new URLSearchParams({ after: nextAfter, page_size: String(query.page_size), ...filter }));
        linkNext(reply, next);
        return query.after === undefined ? result : { ...result, next };
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
              headers: { location: { type: 'string', description: '/v1/users/{id} of the invited user, under PUBLIC_URL’s path' } },
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
        return reply.code(201).header('location', apiPath(deps.paths, `/v1/users/${userId}`)).send();
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
