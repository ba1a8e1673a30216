import type { FastifyInstance, FastifyReply } from 'fastify';
import type { CreateRoleUseCase } from '../../../application/roles/create-role.use-case';
import type { DeleteRoleUseCase } from '../../../application/roles/delete-role.use-case';
import type { GetRoleUseCase } from '../../../application/roles/get-role.use-case';
import type { ListRolesUseCase } from '../../../application/roles/list-roles.use-case';
import type { RoleAnswer } from '../../../application/roles/role.view';
import type { UpdateRoleUseCase } from '../../../application/roles/update-role.use-case';
import { strictIntegerQuery } from '../plugins/strict-integers';
import { bodyProblems, PAGE_PARAMS, pageQueryProperties, permissionProblem, problemResponse, protectedProblems, userIdParams } from '../schemas';
import { expectedVersion, sendVersioned, type VersionedParams, versionHeaders } from '../versioned-resource';
import { apiPath, type PublicPaths } from './public-paths';

type Params = VersionedParams;

/** Role ids are as user ids are: printable ASCII, at most 36 characters (anything else is a 400). */
const roleIdParams = userIdParams;

const { etag: etagHeader, ifMatch: ifMatchHeaders } = versionHeaders('role', 'ROLE_CHANGED_CONCURRENTLY');

const roleAnswer = (description: string) => ({ description, headers: etagHeader, $ref: 'Role#' });

const permissionList = {
  type: 'array',
  maxItems: 200,
  items: { type: 'string', minLength: 1, maxLength: 128 },
  description: 'Permission names or `_id`s (a duplicate counts once); the role’s whole set',
} as const;

const roleName = {
  type: 'string',
  minLength: 1,
  maxLength: 64,
  description: 'Letters, digits, `.`, `_`, `:` or `-`, starting with a letter; unique case-insensitively',
} as const;

const sendRole = (reply: FastifyReply, { role, version }: RoleAnswer) => sendVersioned(reply, role, version);

const notFound = problemResponse('No role has this id (NO_SUCH_ROLE)');

export function rolesRoutes(deps: {
  listRoles: ListRolesUseCase;
  getRole: GetRoleUseCase;
  createRole: CreateRoleUseCase;
  updateRole: UpdateRoleUseCase;
  deleteRole: DeleteRoleUseCase;
  paths: PublicPaths;
}) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get<{ Querystring: { page: number; page_size: number } }>(
      '/roles',
      {
        preValidation: strictIntegerQuery(PAGE_PARAMS),
        schema: {
          operationId: 'listRoles',
          tags: ['roles'],
          summary: 'List roles with their permissions, by name, page by page (needs roles:read)',
          security: [{ bearerAuth: [] }],
          querystring: { type: 'object', properties: { ...pageQueryProperties } },
          response: {
            200: {
              type: 'object',
              required: ['roles', 'pagination'],
              properties: { roles: { type: 'array', items: { $ref: 'Role#' } }, pagination: { $ref: 'Pagination#' } },
            },
            ...protectedProblems,
            403: permissionProblem,
          },
        },
      },
      async (request) =>
        deps.listRoles.execute({ actor: await app.authenticate(request), page: request.query.page, pageSize: request.query.page_size }),
    );

    app.get<Params>(
      '/roles/:id',
      {
        schema: {
          operationId: 'getRole',
          tags: ['roles'],
          summary: 'One role with its permissions and version (needs roles:read)',
          security: [{ bearerAuth: [] }],
          params: roleIdParams,
          response: { 200: roleAnswer('The role; `ETag` is its version'), ...protectedProblems, 403: permissionProblem, 404: notFound },
        },
      },
      async (request, reply) => sendRole(reply, await deps.getRole.execute({ actor: await app.authenticate(request), roleId: request.params.id })),
    );

    app.post<{ Body: { name: string; permissions: string[] } }>(
      '/roles',
      {
        schema: {
          operationId: 'createRole',
          tags: ['roles'],
          summary: 'Create a custom role from existing permissions (needs roles:write)',
          description: 'Nobody creates a role granting a permission they lack (403). An unknown permission is a 400 PERMISSION_NOT_FOUND naming it.',
          security: [{ bearerAuth: [] }],
          body: {
            type: 'object',
            additionalProperties: false,
            required: ['name', 'permissions'],
            properties: { name: roleName, permissions: permissionList },
          },
          response: {
            201: { ...roleAnswer('The role created; `Location` is its address, `ETag` its version'), headers: { ...etagHeader, location: { type: 'string', description: '`/v1/roles/{id}`, under PUBLIC_URL’s path' } } },
            ...protectedProblems,
            400: problemResponse('The body is not valid, or names an unknown permission (PERMISSION_NOT_FOUND)'),
            403: problemResponse('The caller lacks roles:write, or a permission the role would grant'),
            409: problemResponse('Another role has this name, compared case-insensitively (ROLE_NAME_TAKEN)'),
            ...bodyProblems,
          },
        },
      },
      async (request, reply) => {
        const answer = await deps.createRole.execute({ actor: await app.authenticate(request), ...request.body });
        return sendRole(reply.code(201).header('location', apiPath(deps.paths, `/v1/roles/${answer.role._id}`)), answer);
      },
    );

    app.patch<Params & { Body: { name?: string; permissions?: string[] } }>(
      '/roles/:id',
      {
        schema: {
          operationId: 'updateRole',
          tags: ['roles'],
          summary: 'Rename a role and/or replace its permissions (needs roles:write)',
          description:
            'The caller needs every permission of the role now and of the new set. Holders have the new permissions on their next ' +
            'request. Built-in roles are never renamed, and admin never loses a permission (409 BUILT_IN_ROLE). An empty body changes nothing.',
          security: [{ bearerAuth: [] }],
          params: roleIdParams,
          headers: ifMatchHeaders,
          body: { type: 'object', additionalProperties: false, properties: { name: roleName, permissions: permissionList } },
          response: {
            200: roleAnswer('The role as changed; `ETag` is its new version'),
            ...protectedProblems,
            400: problemResponse('The body, the id or `If-Match` is not valid, or the body names an unknown permission'),
            403: problemResponse('The caller lacks roles:write, or a permission of the role or of the new set'),
            404: notFound,
            409: problemResponse('The name is taken, the role is built in, or it changed since `If-Match` (or meanwhile)'),
            ...bodyProblems,
          },
        },
      },
      async (request, reply) =>
        sendRole(
          reply,
          await deps.updateRole.execute({
            actor: await app.authenticate(request),
            roleId: request.params.id,
            expectedVersion: expectedVersion(request),
            ...request.body,
          }),
        ),
    );

    app.delete<Params>(
      '/roles/:id',
      {
        schema: {
          operationId: 'deleteRole',
          tags: ['roles'],
          summary: 'Delete a custom role nobody holds (needs roles:write)',
          description:
            'Refused (409 ROLE_IN_USE) while a pending, active or deactivated user holds it; built-in roles stay (409 BUILT_IN_ROLE). ' +
            'The caller needs every permission of the role.',
          security: [{ bearerAuth: [] }],
          params: roleIdParams,
          headers: ifMatchHeaders,
          response: {
            204: { description: 'Deleted', type: 'null' },
            ...protectedProblems,
            400: problemResponse('The id or `If-Match` is not valid: the failing field is named in `errors`'),
            403: problemResponse('The caller lacks roles:write, or a permission of the role'),
            404: notFound,
            409: problemResponse('Users hold the role, it is built in, or it changed since `If-Match`'),
            ...bodyProblems,
          },
        },
      },
      async (request, reply) => {
        await deps.deleteRole.execute({ actor: await app.authenticate(request), roleId: request.params.id, expectedVersion: expectedVersion(request) });
        return reply.code(204).send();
      },
    );
  };
}
