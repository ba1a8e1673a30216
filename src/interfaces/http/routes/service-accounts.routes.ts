import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AddServiceAccountSecretUseCase } from '../../../application/service-accounts/add-service-account-secret.use-case';
import type { CreateServiceAccountUseCase } from '../../../application/service-accounts/create-service-account.use-case';
import type { DeleteServiceAccountSecretUseCase } from '../../../application/service-accounts/delete-service-account-secret.use-case';
import type { DeleteServiceAccountUseCase } from '../../../application/service-accounts/delete-service-account.use-case';
import type {
  GetServiceAccountUseCase,
  ListServiceAccountSecretsUseCase,
  ListServiceAccountsUseCase,
} from '../../../application/service-accounts/read-service-accounts.use-case';
import type { ReplaceServiceAccountKeysUseCase } from '../../../application/service-accounts/replace-service-account-keys.use-case';
import type { ServiceAccountAnswer } from '../../../application/service-accounts/service-account.view';
import type { UpdateServiceAccountUseCase } from '../../../application/service-accounts/update-service-account.use-case';
import { MAX_KEYS } from '../../../domain/service-accounts/public-jwk-set';
import { strictIntegerQuery } from '../plugins/strict-integers';
import { bodyProblems, PAGE_PARAMS, pageQueryProperties, permissionProblem, problemResponse, protectedProblems } from '../schemas';
import { expectedVersion, sendVersioned, type VersionedParams } from '../versioned-resource';
import {
  accountIdParams,
  clientSecret,
  description,
  etagHeader,
  ifMatchHeaders,
  name,
  role,
  secret,
  secretIdParams,
  secretProperties,
  serviceAccount,
  serviceAccountProperties,
} from './service-accounts.schemas';
import { apiPath, type PublicPaths } from './public-paths';

type Params = VersionedParams;
type SecretParams = { Params: { id: string; secretId: string }; Headers: { 'if-match'?: string } };

const accountAnswer = (text: string) => ({ ...serviceAccount, description: text, headers: etagHeader });
const sendAccount = (reply: FastifyReply, { serviceAccount: body, version }: ServiceAccountAnswer) => sendVersioned(reply, body, version);

const notFound = problemResponse('No service account has this id (NO_SUCH_SERVICE_ACCOUNT)');
const writeDenied = problemResponse('The caller lacks service-accounts:write, or a permission of the account’s role (or of the new one)');

export function serviceAccountsRoutes(deps: {
  listServiceAccounts: ListServiceAccountsUseCase;
  getServiceAccount: GetServiceAccountUseCase;
  createServiceAccount: CreateServiceAccountUseCase;
  updateServiceAccount: UpdateServiceAccountUseCase;
  deleteServiceAccount: DeleteServiceAccountUseCase;
  addServiceAccountSecret: AddServiceAccountSecretUseCase;
  listServiceAccountSecrets: ListServiceAccountSecretsUseCase;
  deleteServiceAccountSecret: DeleteServiceAccountSecretUseCase;
  replaceServiceAccountKeys: ReplaceServiceAccountKeysUseCase;
  paths: PublicPaths;
}) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get<{ Querystring: { page: number; page_size: number } }>(
      '/service-accounts',
      {
        preValidation: strictIntegerQuery(PAGE_PARAMS),
        schema: {
          operationId: 'listServiceAccounts',
          tags: ['service-accounts'],
          summary: 'List service accounts by creation, page by page (needs service-accounts:read)',
          security: [{ bearerAuth: [] }],
          querystring: { type: 'object', properties: { ...pageQueryProperties } },
          response: {
            200: {
              type: 'object',
              required: ['service_accounts', 'pagination'],
              properties: { service_accounts: { type: 'array', items: serviceAccount }, pagination: { $ref: 'Pagination#' } },
            },
            ...protectedProblems,
            403: permissionProblem,
          },
        },
      },
      async (request) =>
        deps.listServiceAccounts.execute({ actor: await app.authenticate(request), page: request.query.page, pageSize: request.query.page_size }),
    );

    app.post<{ Body: { name: string; role: string; description?: string } }>(
      '/service-accounts',
      {
        schema: {
          operationId: 'createServiceAccount',
          tags: ['service-accounts'],
          summary: 'Create a service account holding a role; its first secret is answered this once (needs service-accounts:write)',
          security: [{ bearerAuth: [] }],
          body: { type: 'object', additionalProperties: false, required: ['name', 'role'], properties: { name, role, description } },
          response: {
            201: {
              description: 'The account and its `client_secret` (shown only now); `Location` is its address, `ETag` its version',
              headers: { ...etagHeader, location: { type: 'string', description: '`/v1/service-accounts/{id}`, under PUBLIC_URL’s path' } },
              type: 'object',
              required: [...serviceAccount.required, 'client_secret'],
              properties: { ...serviceAccountProperties, client_secret: clientSecret },
            },
            ...protectedProblems,
            400: problemResponse('The body is not valid, or names an unknown role (ROLE_NOT_FOUND)'),
            403: problemResponse('The caller lacks service-accounts:write, or a permission the role holds'),
            409: problemResponse('Another service account has this name, compared case-insensitively (SERVICE_ACCOUNT_NAME_TAKEN)'),
            ...bodyProblems,
          },
        },
      },
      async (request, reply) => {
        const { clientSecret: secretValue, ...answer } = await deps.createServiceAccount.execute({ actor: await app.authenticate(request), ...request.body });
        reply.code(201).header('location', apiPath(deps.paths, `/v1/service-accounts/${answer.serviceAccount._id}`)).header('cache-control', 'no-store');
        return sendVersioned(reply, { ...answer.serviceAccount, client_secret: secretValue }, answer.version);
      },
    );

    app.get<Params>(
      '/service-accounts/:id',
      {
        schema: {
          operationId: 'getServiceAccount',
          tags: ['service-accounts'],
          summary: 'One service account and its version (needs service-accounts:read)',
          security: [{ bearerAuth: [] }],
          params: accountIdParams,
          response: { 200: accountAnswer('The account; `ETag` is its version'), ...protectedProblems, 403: permissionProblem, 404: notFound },
        },
      },
      async (request, reply) =>
        sendAccount(reply, await deps.getServiceAccount.execute({ actor: await app.authenticate(request), serviceAccountId: request.params.id })),
    );

    app.patch<Params & { Body: { name?: string; description?: string | null; role?: string; disabled?: boolean } }>(
      '/service-accounts/:id',
      {
        schema: {
          operationId: 'updateServiceAccount',
          tags: ['service-accounts'],
          summary: 'Change a service account’s name, description, role or disabled flag (needs service-accounts:write)',
          description:
            'The caller needs every permission of the account’s role and of the new role. A role change or disabling applies at its next ' +
            'request. `description: null` removes it. An empty body changes nothing.',
          security: [{ bearerAuth: [] }],
          params: accountIdParams,
          headers: ifMatchHeaders,
          body: {
            type: 'object',
            additionalProperties: false,
            properties: { name, description: { type: ['string', 'null'], maxLength: 500, description: 'Free text; `null` removes it' }, role, disabled: { type: 'boolean' } },
          },
          response: {
            200: accountAnswer('The account as changed; `ETag` is its new version'),
            ...protectedProblems,
            400: problemResponse('The body, the id or `If-Match` is not valid, or the body names an unknown role'),
            403: writeDenied,
            404: notFound,
            409: problemResponse('The name is taken, or the account changed since `If-Match` (or meanwhile)'),
            ...bodyProblems,
          },
        },
      },
      async (request, reply) =>
        sendAccount(
          reply,
          await deps.updateServiceAccount.execute({
            actor: await app.authenticate(request),
            serviceAccountId: request.params.id,
            expectedVersion: expectedVersion(request),
            ...request.body,
          }),
        ),
    );

    app.delete<Params>(
      '/service-accounts/:id',
      {
        schema: {
          operationId: 'deleteServiceAccount',
          tags: ['service-accounts'],
          summary: 'Delete a service account and its secrets (needs service-accounts:write)',
          security: [{ bearerAuth: [] }],
          params: accountIdParams,
          headers: ifMatchHeaders,
          response: {
            204: { description: 'Deleted', type: 'null' },
            ...protectedProblems,
            400: problemResponse('The id or `If-Match` is not valid: the failing field is named in `errors`'),
            403: writeDenied,
            404: notFound,
            409: problemResponse('The account changed since `If-Match`'),
            ...bodyProblems,
          },
        },
      },
      async (request, reply) => {
        await deps.deleteServiceAccount.execute({ actor: await app.authenticate(request), serviceAccountId: request.params.id, expectedVersion: expectedVersion(request) });
        return reply.code(204).send();
      },
    );

    app.get<Params>(
      '/service-accounts/:id/secrets',
      {
        schema: {
          operationId: 'listServiceAccountSecrets',
          tags: ['service-accounts'],
          summary: 'The account’s secrets: ids, creation, expiry and last use, never a secret (needs service-accounts:read)',
          security: [{ bearerAuth: [] }],
          params: accountIdParams,
          response: {
            200: { type: 'object', required: ['secrets'], properties: { secrets: { type: 'array', items: secret } } },
            ...protectedProblems,
            403: permissionProblem,
            404: notFound,
          },
        },
      },
      async (request) => deps.listServiceAccountSecrets.execute({ actor: await app.authenticate(request), serviceAccountId: request.params.id }),
    );

    app.post<Params & { Body: { expires_in?: number } | undefined }>(
      '/service-accounts/:id/secrets',
      {
        schema: {
          operationId: 'addServiceAccountSecret',
          tags: ['service-accounts'],
          summary: 'Add a secret (rotation with overlap: both work until the old one is deleted), answered this once (needs service-accounts:write)',
          description: 'At most 5 secrets at once (409 TOO_MANY_SECRETS).',
          security: [{ bearerAuth: [] }],
          params: accountIdParams,
          headers: ifMatchHeaders,
          body: {
            type: 'object',
            additionalProperties: false,
            properties: { expires_in: { type: 'integer', minimum: 60, maximum: 315_360_000, description: 'Seconds until it stops working (60 s to 10 years); none: until deleted' } },
          },
          response: {
            201: {
              description: 'The new secret and its value, shown only now; `ETag` is the account’s new version',
              headers: etagHeader,
              type: 'object',
              required: [...secret.required, 'client_secret'],
              properties: { ...secretProperties, client_secret: clientSecret },
            },
            ...protectedProblems,
            400: problemResponse('The body, the id or `If-Match` is not valid'),
            403: writeDenied,
            404: notFound,
            409: problemResponse('The account holds 5 secrets already (TOO_MANY_SECRETS), or changed since `If-Match`'),
            ...bodyProblems,
          },
        },
      },
      async (request, reply) => {
        const answer = await deps.addServiceAccountSecret.execute({
          actor: await app.authenticate(request),
          serviceAccountId: request.params.id,
          expectedVersion: expectedVersion(request),
          ...(request.body?.expires_in !== undefined ? { expiresIn: request.body.expires_in } : {}),
        });
        reply.code(201).header('cache-control', 'no-store');
        return sendVersioned(reply, { ...answer.secret, client_secret: answer.clientSecret }, answer.version);
      },
    );

    app.delete<SecretParams>(
      '/service-accounts/:id/secrets/:secretId',
      {
        schema: {
          operationId: 'deleteServiceAccountSecret',
          tags: ['service-accounts'],
          summary: 'Delete a secret: it stops working at once (needs service-accounts:write)',
          description: 'Never the account’s last credential: with no other secret and no key it is refused (409 LAST_CREDENTIAL).',
          security: [{ bearerAuth: [] }],
          params: secretIdParams,
          headers: ifMatchHeaders,
          response: {
            204: { description: 'Deleted', type: 'null' },
            ...protectedProblems,
            400: problemResponse('An id or `If-Match` is not valid'),
            403: writeDenied,
            404: problemResponse('No such service account (NO_SUCH_SERVICE_ACCOUNT) or secret (NO_SUCH_SERVICE_ACCOUNT_SECRET)'),
            409: problemResponse('It is the last credential (LAST_CREDENTIAL), or the account changed since `If-Match`'),
            ...bodyProblems,
          },
        },
      },
      async (request, reply) => {
        await deps.deleteServiceAccountSecret.execute({
          actor: await app.authenticate(request),
          serviceAccountId: request.params.id,
          secretId: request.params.secretId,
          expectedVersion: expectedVersion(request as never),
        });
        return reply.code(204).send();
      },
    );

    app.put<Params & { Body: { keys: unknown[] } }>(
      '/service-accounts/:id/keys',
      {
        schema: {
          operationId: 'replaceServiceAccountKeys',
          tags: ['service-accounts'],
          summary: 'Replace the public keys the account signs client assertions with (needs service-accounts:write)',
          description:
            'An inline JWK set: the service never fetches a URL. Each key is EC P-256, RSA of 2048 bits or more, or Ed25519, with its own ' +
            `\`kid\` and no private member; at most ${MAX_KEYS}. An empty set removes them (not while the account has no secret: 409 LAST_CREDENTIAL).`,
          security: [{ bearerAuth: [] }],
          params: accountIdParams,
          headers: ifMatchHeaders,
          body: {
            type: 'object',
            additionalProperties: false,
            required: ['keys'],
            properties: {
              keys: {
                type: 'array',
                maxItems: MAX_KEYS,
                items: { type: 'object', maxProperties: 12, additionalProperties: { type: 'string', maxLength: 1400 } },
                description: 'Public JWKs, each with a `kid`',
              },
            },
          },
          response: {
            200: accountAnswer('The account with its new keys; `ETag` is its new version'),
            ...protectedProblems,
            400: problemResponse('The body, the id or `If-Match` is not valid, or a key is not an accepted public key'),
            403: writeDenied,
            404: notFound,
            409: problemResponse('It would remove the last credential (LAST_CREDENTIAL), or the account changed since `If-Match`'),
            ...bodyProblems,
          },
        },
      },
      async (request, reply) =>
        sendAccount(
          reply,
          await deps.replaceServiceAccountKeys.execute({
            actor: await app.authenticate(request),
            serviceAccountId: request.params.id,
            expectedVersion: expectedVersion(request),
            keys: request.body.keys,
          }),
        ),
    );
  };
}
