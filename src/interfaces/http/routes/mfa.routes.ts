import type { FastifyInstance } from 'fastify';
import type { ListOwnFactorsUseCase, RegenerateRecoveryCodesUseCase, RemoveOwnTotpUseCase } from '../../../application/mfa/manage-own-factors.use-cases';
import type { ResetUserMfaUseCase } from '../../../application/mfa/reset-user-mfa.use-case';
import type { ConfirmTotpEnrollmentUseCase, StartTotpEnrollmentUseCase } from '../../../application/mfa/totp-enrollment.use-cases';
import type { FactorProof } from '../../../application/mfa/own-factor-proof';
import { PASSWORD_MAX_LENGTH } from '../../../domain/users/password-policy';
import { bodyProblems, problemResponse, protectedProblems, throttledProblem, totpCodeSchema, userIdParams } from '../schemas';
import { factorProofBody, factorProofDescription, wrongFactorProof } from './webauthn.schemas';

const gone = problemResponse('The account was deleted or deactivated meanwhile (`USER_NOT_FOUND`), or the token is a service account’s (`NOT_A_USER`)');
const datetime = { type: 'string', format: 'date-time' } as const;
const recoveryCodes = {
  type: 'object',
  required: ['recovery_codes'],
  properties: {
    recovery_codes: { type: 'array', items: { type: 'string' }, description: 'Ten single-use codes, shown this once: each signs in once instead of a code' },
  },
} as const;

/** The caller's second factors (`/v1/me/mfa…`), and an admin's reset of another user's (#24). */
export function mfaRoutes(deps: {
  startTotpEnrollment: StartTotpEnrollmentUseCase;
  confirmTotpEnrollment: ConfirmTotpEnrollmentUseCase;
  listOwnFactors: ListOwnFactorsUseCase;
  removeOwnTotp: RemoveOwnTotpUseCase;
  regenerateRecoveryCodes: RegenerateRecoveryCodesUseCase;
  resetUserMfa: ResetUserMfaUseCase;
}) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get(
      '/me/mfa',
      {
        config: { mfaEnrollment: true },
        schema: {
          operationId: 'listOwnFactors',
          tags: ['mfa'],
          summary: 'The caller’s second factors (no secret) and how many recovery codes remain',
          security: [{ bearerAuth: [] }],
          response: {
            200: {
              type: 'object',
              required: ['factors', 'recovery_codes_remaining'],
              properties: {
                factors: {
                  type: 'array',
                  items: {
                    type: 'object',
                    description:
                      'An authenticator app (`totp`, one at most) or a passkey (`webauthn`, several, with `id` and `name`). `last_used_date`: when it last signed in or proved the ' +
                      'owner (a passkey: that moment; an app: the start of the 30-second step of its last code accepted, the confirming code included); absent before its first use',
                    required: ['type', 'confirmed', 'created_date'],
                    properties: {
                      type: { type: 'string', enum: ['totp', 'webauthn'] },
                      id: { type: 'string', description: 'A passkey’s id, for renaming or removing it' },
                      name: { type: 'string' },
                      confirmed: { type: 'boolean' },
                      created_date: datetime,
                      confirmed_date: datetime,
                      last_used_date: datetime,
                    },
                  },
                },
                recovery_codes_remaining: { type: 'integer' },
              },
            },
            ...protectedProblems,
            404: gone,
          },
        },
      },
      async (request, reply) => {
        const { factors, recoveryCodesRemaining } = await deps.listOwnFactors.execute({ actor: await app.authenticate(request) });
        return reply.header('cache-control', 'no-store').send({
          factors: factors.map((f) => ({
            type: f.type,
            ...(f.type === 'webauthn' ? { id: f.id, name: f.name } : {}),
            confirmed: f.confirmedAt !== null,
            created_date: f.createdAt.toISOString(),
            ...(f.confirmedAt ? { confirmed_date: f.confirmedAt.toISOString() } : {}),
            ...(f.lastUsedAt ? { last_used_date: f.lastUsedAt.toISOString() } : {}),
          })),
          recovery_codes_remaining: recoveryCodesRemaining,
        });
      },
    );

    app.post<{ Body: FactorProof }>(
      '/me/mfa/totp',
      {
        config: { throttle: 'address', passwordWork: true, mfaEnrollment: true },
        schema: {
          operationId: 'startTotpEnrollment',
          tags: ['mfa'],
          summary: 'Start enrolling an authenticator app, on one’s password: its secret, otpauth URI and QR code (shown this once)',
          description:
            'The factor is pending until POST /v1/me/mfa/totp/confirm proves a code of it; starting again replaces a pending one. ' +
            'With an active one: 409 `MFA_ALREADY_ENABLED`. The secret is stored sealed (MFA_ENCRYPTION_KEY) and never answered again. ' +
            `An enrollment-only token (MFA_REQUIRED_PERMISSIONS) starts one too. ${factorProofDescription} Without an active app, only the password proves.`,
          security: [{ bearerAuth: [] }],
          body: factorProofBody(PASSWORD_MAX_LENGTH),
          response: {
            201: {
              type: 'object',
              required: ['secret', 'otpauth_uri', 'qr_code'],
              properties: {
                secret: { type: 'string', description: 'Base32, for typing into an app that cannot scan' },
                otpauth_uri: { type: 'string' },
                qr_code: { type: 'string', description: 'The URI as a PNG image, `data:image/png;base64,…`' },
              },
            },
            ...protectedProblems,
            400: wrongFactorProof,
            404: gone,
            409: problemResponse('An authenticator app is active already (`MFA_ALREADY_ENABLED`)'),
            ...bodyProblems,
            429: throttledProblem,
          },
        },
      },
      async (request, reply) => {
        const enrollment = await deps.startTotpEnrollment.execute({ actor: await app.authenticate(request), proof: request.body });
        return reply
          .code(201)
          .header('cache-control', 'no-store')
          .send({ secret: enrollment.secret, otpauth_uri: enrollment.otpauthUri, qr_code: enrollment.qrCode });
      },
    );

    app.post<{ Body: { code: string } }>(
      '/me/mfa/totp/confirm',
      {
        config: { throttle: 'address', mfaEnrollment: true },
        schema: {
          operationId: 'confirmTotpEnrollment',
          tags: ['mfa'],
          summary: 'Activate the pending authenticator app with a current code: answers ten recovery codes, shown once',
          security: [{ bearerAuth: [] }],
          body: { type: 'object', required: ['code'], additionalProperties: false, properties: { code: totpCodeSchema } },
          response: {
            200: recoveryCodes,
            ...protectedProblems,
            400: problemResponse('The code is not a current code of the pending secret (`INVALID_MFA_CODE`), or not six digits (`VALIDATION_FAILED`)'),
            404: gone,
            409: problemResponse('Nothing pending (`MFA_ENROLLMENT_NOT_STARTED`), or one is active already (`MFA_ALREADY_ENABLED`)'),
            ...bodyProblems,
            429: throttledProblem,
          },
        },
      },
      async (request, reply) => {
        const { recoveryCodes: codes } = await deps.confirmTotpEnrollment.execute({ actor: await app.authenticate(request), code: request.body.code });
        return reply.header('cache-control', 'no-store').send({ recovery_codes: codes });
      },
    );

    app.delete<{ Body: FactorProof }>(
      '/me/mfa/totp',
      {
        config: { throttle: 'address', passwordWork: true },
        schema: {
          operationId: 'removeOwnTotp',
          tags: ['mfa'],
          summary: 'Remove one’s authenticator app, on one’s password or a current code of it; the recovery codes go with the last factor',
          description: factorProofDescription,
          security: [{ bearerAuth: [] }],
          body: factorProofBody(PASSWORD_MAX_LENGTH),
          response: {
            204: { description: 'Removed', type: 'null' },
            ...protectedProblems,
            400: wrongFactorProof,
            404: gone,
            409: problemResponse('No authenticator app (`MFA_NOT_ENABLED`)'),
            ...bodyProblems,
            429: throttledProblem,
          },
        },
      },
      async (request, reply) => {
        await deps.removeOwnTotp.execute({ actor: await app.authenticate(request), proof: request.body });
        return reply.code(204).send();
      },
    );

    app.post<{ Body: FactorProof }>(
      '/me/mfa/recovery-codes',
      {
        config: { throttle: 'address', passwordWork: true },
        schema: {
          operationId: 'regenerateRecoveryCodes',
          tags: ['mfa'],
          summary: 'Ten new recovery codes, shown once, on one’s password or a current authenticator code; every older one stops working',
          description: factorProofDescription,
          security: [{ bearerAuth: [] }],
          body: factorProofBody(PASSWORD_MAX_LENGTH),
          response: {
            200: recoveryCodes,
            ...protectedProblems,
            400: wrongFactorProof,
            404: gone,
            409: problemResponse('No active second factor (`MFA_NOT_ENABLED`)'),
            ...bodyProblems,
            429: throttledProblem,
          },
        },
      },
      async (request, reply) => {
        const { recoveryCodes: codes } = await deps.regenerateRecoveryCodes.execute({ actor: await app.authenticate(request), proof: request.body });
        return reply.header('cache-control', 'no-store').send({ recovery_codes: codes });
      },
    );

    app.delete<{ Params: { id: string } }>(
      '/users/:id/mfa',
      {
        schema: {
          operationId: 'resetUserMfa',
          tags: ['users'],
          summary: 'Remove another user’s second factors and recovery codes; every token of theirs ends (needs users:update)',
          description: 'Authenticator app and passkeys alike. The caller also needs every permission of the user’s role. One’s own factors are removed at DELETE /v1/me/mfa/totp and /v1/me/mfa/webauthn/{id}.',
          security: [{ bearerAuth: [] }],
          params: userIdParams,
          response: {
            204: { description: 'Reset: the user signs in with the password alone until a factor is enrolled again', type: 'null' },
            ...protectedProblems,
            403: problemResponse('The caller lacks users:update, or a permission of the user’s role'),
            404: problemResponse('No user has this id'),
            409: problemResponse(
              'The caller’s own account (`OWN_ACCOUNT`), the user has no second factor (`MFA_NOT_ENABLED`), or the user’s second step is closed ' +
                'after MFA_MAX_FAILURES refused codes (`SECOND_FACTOR_CLOSED`): the user resets the password first',
            ),
            ...bodyProblems,
          },
        },
      },
      async (request, reply) => {
        await deps.resetUserMfa.execute({ actor: await app.authenticate(request), userId: request.params.id });
        return reply.code(204).send();
      },
    );
  };
}
