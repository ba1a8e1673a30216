import type { FastifyInstance } from 'fastify';
import type { FinishPasskeyRegistrationUseCase, RemoveOwnPasskeyUseCase, RenamePasskeyUseCase, StartPasskeyRegistrationUseCase } from '../../../application/mfa/passkey.use-cases';
import type { FactorProof } from '../../../application/mfa/own-factor-proof';
import { PASSWORD_MAX_LENGTH } from '../../../domain/users/password-policy';
import { bodyProblems, problemResponse, protectedProblems, throttledProblem } from '../schemas';
import { creationOptionsSchema, factorProofBody, factorProofDescription, passkeyBody, passkeyIdParams, passkeyNameSchema, passkeySchema, registrationResponseSchema, wrongFactorProof } from './webauthn.schemas';

const gone = problemResponse('The account was deleted or deactivated meanwhile (`USER_NOT_FOUND`), or the token is a service account’s (`NOT_A_USER`)');
const noSuchPasskey = problemResponse('The caller has no passkey with this id (`PASSKEY_NOT_FOUND`), or the account is gone (`USER_NOT_FOUND`)');

/** The caller's passkeys (`/v1/me/mfa/webauthn…`, #24): register, rename, remove. Listed with the other factors at GET /v1/me/mfa. */
export function passkeysRoutes(deps: {
  startPasskeyRegistration: StartPasskeyRegistrationUseCase;
  finishPasskeyRegistration: FinishPasskeyRegistrationUseCase;
  renamePasskey: RenamePasskeyUseCase;
  removeOwnPasskey: RemoveOwnPasskeyUseCase;
}) {
  return async (app: FastifyInstance): Promise<void> => {
    app.post<{ Body: FactorProof }>(
      '/me/mfa/webauthn/registration-options',
      {
        config: { throttle: 'address', passwordWork: true, mfaEnrollment: true },
        schema: {
          operationId: 'startPasskeyRegistration',
          tags: ['mfa'],
          summary: 'Options for registering a passkey (WebAuthn creation options, the relying party PUBLIC_URL’s host), on one’s password or a current authenticator code',
          description:
            'Pass them to `navigator.credentials.create`, then send its credential to POST /v1/me/mfa/webauthn within 5 minutes. At most 10 passkeys: 409 `PASSKEY_LIMIT_REACHED`. ' +
            factorProofDescription,
          security: [{ bearerAuth: [] }],
          body: factorProofBody(PASSWORD_MAX_LENGTH),
          response: {
            200: creationOptionsSchema,
            ...protectedProblems,
            400: wrongFactorProof,
            404: gone,
            409: problemResponse('The caller holds 10 passkeys already (`PASSKEY_LIMIT_REACHED`)'),
            ...bodyProblems,
            429: throttledProblem,
          },
        },
      },
      async (request, reply) => {
        const options = await deps.startPasskeyRegistration.execute({ actor: await app.authenticate(request), proof: request.body });
        return reply.header('cache-control', 'no-store').send(options);
      },
    );

    app.post<{ Body: { name?: string; response: unknown } }>(
      '/me/mfa/webauthn',
      {
        config: { throttle: 'address', mfaEnrollment: true },
        schema: {
          operationId: 'registerPasskey',
          tags: ['mfa'],
          summary: 'Register the passkey a browser created for the registration options: active at once',
          description:
            'The caller’s first second factor also answers ten recovery codes, shown once. A response that does not verify (its challenge unknown, used or ' +
            'expired, another origin, a malformed attestation, a credential registered already): 400 `INVALID_WEBAUTHN_RESPONSE`.',
          security: [{ bearerAuth: [] }],
          body: {
            type: 'object',
            required: ['response'],
            additionalProperties: false,
            properties: { name: passkeyNameSchema, response: registrationResponseSchema },
          },
          response: {
            201: {
              ...passkeySchema,
              properties: {
                ...passkeySchema.properties,
                recovery_codes: { type: 'array', items: { type: 'string' }, description: 'With the caller’s first factor only: ten single-use codes, shown this once' },
              },
            },
            ...protectedProblems,
            400: problemResponse('The response does not verify (`INVALID_WEBAUTHN_RESPONSE`), or the body is malformed (`VALIDATION_FAILED`)'),
            404: gone,
            409: problemResponse('The caller holds 10 passkeys already (`PASSKEY_LIMIT_REACHED`)'),
            ...bodyProblems,
            429: throttledProblem,
          },
        },
      },
      async (request, reply) => {
        const { passkey, recoveryCodes } = await deps.finishPasskeyRegistration.execute({
          actor: await app.authenticate(request),
          response: request.body.response,
          ...(request.body.name !== undefined ? { name: request.body.name } : {}),
        });
        return reply
          .code(201)
          .header('cache-control', 'no-store')
          .send({ ...passkeyBody(passkey), ...(recoveryCodes ? { recovery_codes: recoveryCodes } : {}) });
      },
    );

    app.patch<{ Params: { id: string }; Body: { name: string } }>(
      '/me/mfa/webauthn/:id',
      {
        schema: {
          operationId: 'renamePasskey',
          tags: ['mfa'],
          summary: 'Rename one of the caller’s passkeys',
          security: [{ bearerAuth: [] }],
          params: passkeyIdParams,
          body: { type: 'object', required: ['name'], additionalProperties: false, properties: { name: passkeyNameSchema } },
          response: { 200: passkeySchema, ...protectedProblems, 404: noSuchPasskey, ...bodyProblems, 429: throttledProblem },
        },
        // Each rename is audited (an entry and its event): per address, as the factor's other routes, not without bound.
        config: { throttle: 'address' },
      },
      async (request, reply) => {
        const passkey = await deps.renamePasskey.execute({ actor: await app.authenticate(request), passkeyId: request.params.id, name: request.body.name });
        return reply.send(passkeyBody(passkey));
      },
    );

    app.delete<{ Params: { id: string }; Body: FactorProof }>(
      '/me/mfa/webauthn/:id',
      {
        config: { throttle: 'address', passwordWork: true },
        schema: {
          operationId: 'removeOwnPasskey',
          tags: ['mfa'],
          summary: 'Remove one of the caller’s passkeys, on the password or a current authenticator code; the recovery codes go with the last factor',
          description: factorProofDescription,
          security: [{ bearerAuth: [] }],
          params: passkeyIdParams,
          body: factorProofBody(PASSWORD_MAX_LENGTH),
          response: {
            204: { description: 'Removed', type: 'null' },
            ...protectedProblems,
            400: wrongFactorProof,
            404: noSuchPasskey,
            ...bodyProblems,
            429: throttledProblem,
          },
        },
      },
      async (request, reply) => {
        await deps.removeOwnPasskey.execute({ actor: await app.authenticate(request), passkeyId: request.params.id, proof: request.body });
        return reply.code(204).send();
      },
    );
  };
}
