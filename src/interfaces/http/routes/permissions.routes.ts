import type { FastifyInstance } from 'fastify';
import type { ListPermissionsUseCase } from '../../../application/permissions/list-permissions.use-case';
import { ValidationError } from '../../../domain/shared/domain-error';
import { strictIntegerQuery } from '../plugins/strict-integers';
import { PAGE_PARAMS, pageQueryProperties, permissionProblem, protectedProblems } from '../schemas';

interface PermissionQuery {
  page: number;
  page_size: number;
  group?: string;
  name?: string;
  'filter[group]'?: string;
  'filter[name]'?: string;
}

const filterValue = { type: 'string', minLength: 1, maxLength: 128 } as const;

export function permissionsRoutes(deps: { listPermissions: ListPermissionsUseCase }) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get<{ Querystring: PermissionQuery }>(
      '/permissions',
      {
        preValidation: strictIntegerQuery(PAGE_PARAMS),
        schema: {
          operationId: 'listPermissions',
          tags: ['permissions'],
          summary: 'List permissions, page by page, filtered (needs permissions:read)',
          description:
            'Filters match exactly. `group` and `filter[group]` (likewise `name` and `filter[name]`) are two spellings of one parameter; giving both with different values is a 400.',
          security: [{ bearerAuth: [] }],
          querystring: {
            type: 'object',
            // A parameter it does not name is a 400 naming it: a mistyped filter never lists every permission.
            additionalProperties: false,
            properties: {
              ...pageQueryProperties,
              group: filterValue,
              name: filterValue,
              'filter[group]': filterValue,
              'filter[name]': filterValue,
            },
          },
          response: {
            200: {
              type: 'object',
              required: ['permissions', 'pagination'],
              properties: {
                permissions: { type: 'array', items: { $ref: 'Permission#' } },
                pagination: { $ref: 'Pagination#' },
              },
            },
            ...protectedProblems,
            403: permissionProblem,
          },
        },
      },
      async (request) => {
        const actor = await app.authenticate(request);
        const q = request.query;
        return deps.listPermissions.execute({
          actor,
          filter: { group: oneOf('group', q.group, q['filter[group]']), name: oneOf('name', q.name, q['filter[name]']) },
          page: q.page,
          pageSize: q.page_size,
        });
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
