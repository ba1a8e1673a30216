import type { FastifyInstance, FastifyReply } from 'fastify';
import type { DeactivateUserUseCase } from '../../../application/users/deactivate-user.use-case';
import type { DeleteUserUseCase } from '../../../application/users/delete-user.use-case';
import type { GetUserUseCase } from '../../../application/users/get-user.use-case';
import type { ReactivateUserUseCase } from '../../../application/users/reactivate-user.use-case';
import type { UpdateUserUseCase } from '../../../application/users/update-user.use-case';
import type { UserDetails } from '../../../application/users/user.view';
import { bodyProblems, permissionProblem, problemResponse, protectedProblems, userIdParams } from '../schemas';
import { expectedVersion, sendVersioned, type VersionedParams, versionHeaders } from '../versioned-resource';

type Params = VersionedParams;

const { etag: etagHeader, ifMatch: ifMatchHeaders } = versionHeaders('user', 'USER_CHANGED_CONCURRENTLY');

const userAnswer = (description: string) => ({ description, headers: etagHeader, $ref: 'UserDetail#' });

const sendUser = (reply: FastifyReply, { user, version }: UserDetails) => sendVersioned(reply, user, version);

const notFound = problemResponse('No user has this id');
const badRequest = problemResponse('The id or `If-Match` is not valid: the failing field is named in `errors`');

export function userAdministrationRoutes(deps: {
  getUser: GetUserUseCase;
  updateUser: UpdateUserUseCase;
  deactivateUser: DeactivateUserUseCase;
  reactivateUser: ReactivateUserUseCase;
  deleteUser: DeleteUserUseCase;
}) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get<Params>(
      '/users/:id',
      {
        schema: {
          operationId: 'getUser',
          tags: ['users'],
          summary: 'One user, with its status and version (needs users:read)',
          security: [{ bearerAuth: [] }],
          params: userIdParams,
          response: {
            200: userAnswer('The user; `ETag` is its version'),
            ...protectedProblems,
            403: permissionProblem,
            404: notFound,
          },
        },
      },
      async (request, reply) => sendUser(reply, await deps.getUser.execute({ actor: await app.authenticate(request), userId: request.params.id })),
    );

    app.patch<Params & { Body: { name?: string; role?: string } }>(
      '/users/:id',
      {
        schema: {
          operationId: 'updateUser',
          tags: ['users'],
          summary: 'Change a user’s name and/or role (needs users:update)',
          description:
            '`role` is a role name or _id and may not hold permissions the caller lacks; the caller also needs every ' +
            'permission of the user’s current role. A role change takes effect on the user’s next request. The last ' +
            'active admin keeps the admin role (409 LAST_ACTIVE_ADMIN). Sets `updated_date` and `updated_by`.',
          security: [{ bearerAuth: [] }],
          params: userIdParams,
          headers: ifMatchHeaders,
          body: {
            type: 'object',
            additionalProperties: false,
            properties: {
              name: { type: 'string', maxLength: 200 },
              role: { type: 'string', minLength: 1, maxLength: 64 },
            },
          },
          response: {
            200: userAnswer('The user as changed; `ETag` is its new version'),
            ...protectedProblems,
            400: problemResponse('The body, the id or `If-Match` is not valid, or the body names an unknown role'),
            403: problemResponse('The caller lacks users:update, or a permission of the user’s role or of the new one'),
            404: notFound,
            409: problemResponse('The user changed since `If-Match` (or meanwhile), or it is the last active admin'),
            ...bodyProblems,
          },
        },
      },
      async (request, reply) =>
        sendUser(
          reply,
          await deps.updateUser.execute({
            actor: await app.authenticate(request),
            userId: request.params.id,
            expectedVersion: expectedVersion(request),
            ...request.body,
          }),
        ),
    );

    app.post<Params>(
      '/users/:id/deactivate',
      {
        schema: {
          operationId: 'deactivateUser',
          tags: ['users'],
          summary: 'Lock a user out: no sign-in, every token refused at once (needs users:deactivate)',
          description: 'Deactivating a deactivated user changes nothing. Nobody deactivates their own account, nor the last active admin.',
          security: [{ bearerAuth: [] }],
          params: userIdParams,
          headers: ifMatchHeaders,
          response: {
            200: userAnswer('The user, deactivated; `ETag` is its version'),
            ...protectedProblems,
            400: badRequest,
            403: problemResponse('The caller lacks users:deactivate, or a permission of the user’s role'),
            404: notFound,
            409: problemResponse('The caller’s own account, the last active admin, or the user changed since `If-Match`'),
            ...bodyProblems,
          },
        },
      },
      async (request, reply) =>
        sendUser(
          reply,
          await deps.deactivateUser.execute({ actor: await app.authenticate(request), userId: request.params.id, expectedVersion: expectedVersion(request) }),
        ),
    );

    app.post<Params>(
      '/users/:id/reactivate',
      {
        schema: {
          operationId: 'reactivateUser',
          tags: ['users'],
          summary: 'Give a deactivated user its access back, same password (needs users:deactivate)',
          description: 'A joined user is active again (its old tokens stay ended: it signs in), an invitee pending. Reactivating a user that is not deactivated changes nothing.',
          security: [{ bearerAuth: [] }],
          params: userIdParams,
          headers: ifMatchHeaders,
          response: {
            200: userAnswer('The user, reactivated; `ETag` is its version'),
            ...protectedProblems,
            400: badRequest,
            403: problemResponse('The caller lacks users:deactivate, or a permission of the user’s role'),
            404: notFound,
            409: problemResponse('The user changed since `If-Match`, or meanwhile'),
            ...bodyProblems,
          },
        },
      },
      async (request, reply) =>
        sendUser(
          reply,
          await deps.reactivateUser.execute({ actor: await app.authenticate(request), userId: request.params.id, expectedVersion: expectedVersion(request) }),
        ),
    );

    app.delete<Params>(
      '/users/:id',
      {
        schema: {
          operationId: 'deleteUser',
          tags: ['users'],
          summary: 'Remove a person: name, e-mail, username and password are erased (needs users:delete)',
          description:
            'The e-mail and username are free again, a pending invitation dies and every token is refused at once. ' +
            'The id stays behind other users’ `invited_by`/`updated_by`. Nobody deletes their own account, nor the last active admin.',
          security: [{ bearerAuth: [] }],
          params: userIdParams,
          headers: ifMatchHeaders,
          response: {
            204: { description: 'Deleted', type: 'null' },
            ...protectedProblems,
            400: badRequest,
            403: problemResponse('The caller lacks users:delete, or a permission of the user’s role'),
            404: notFound,
            409: problemResponse('The caller’s own account, the last active admin, or the user changed since `If-Match`'),
            ...bodyProblems,
          },
        },
      },
      async (request, reply) => {
        await deps.deleteUser.execute({ actor: await app.authenticate(request), userId: request.params.id, expectedVersion: expectedVersion(request) });
        return reply.code(204).send();
      },
    );
  };
}
