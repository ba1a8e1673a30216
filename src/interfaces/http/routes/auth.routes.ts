import type { FastifyInstance } from 'fastify';
import type { RefreshSessionUseCase } from '../../../application/auth/refresh-session.use-case';
import type { SignInUseCase } from '../../../application/auth/sign-in.use-case';
import type { SignOutUseCase } from '../../../application/auth/sign-out.use-case';
import type { CompleteMfaSignInUseCase } from '../../../application/mfa/complete-mfa-sign-in.use-case';
import { MfaRequiredError } from '../../../application/mfa/mfa.errors';
import type { PasskeySignInOptionsUseCase } from '../../../application/mfa/passkey-sign-in-options.use-case';
import { PASSWORD_MAX_LENGTH } from '../../../domain/users/password-policy';
import { problem } from '../problem';
import { anyRequestProblems, bodyProblems, ProblemSchema, problemResponse, protectedProblems, throttledProblem, totpCodeSchema, unavailableProblem } from '../schemas';
import { sessionTokensResponse } from './session-tokens.schema';
import { assertionSchema, requestOptionsSchema } from './webauthn.schemas';

/** Opaque refresh tokens are 75 characters of base64url (43 before refresh-token-format.ts); anything longer is refused before any lookup. */
const REFRESH_TOKEN_MAX_LENGTH = 128;

const signInResult = {
  type: 'object',
  required: ['name', 'username', 'email', 'role', 'accessToken', 'refreshToken'],
  properties: {
    name: { type: 'string' },
    username: { type: 'string' },
    email: { type: 'string' },
    role: {
      type: 'object',
      required: ['name', 'permissions'],
      properties: { name: { type: 'string' }, permissions: { type: 'array', items: { type: 'string' } } },
    },
    accessToken: { type: 'string' },
    refreshToken: { type: 'string', description: 'Opaque; exchanged once at POST /v1/auth/refresh for new tokens' },
  },
} as const;

/** The password step's 401 for a user with a second factor carries the ticket of the second step (#24). */
const mfaRequiredProblem = {
  description:
    'Unknown user, wrong password, locked account or not joined yet: one answer for all (`INVALID_CREDENTIALS`). ' +
    'A user with a second factor, right password or wrong: `MFA_REQUIRED` with `mfa_token` (single use, 5 minutes) and `methods`, ' +
    'and for a user with a passkey the options of a WebAuthn assertion (`webauthn_options`); a wrong password’s mfa_token looks the same ' +
    'and is refused at the second step as a wrong code is, whatever code comes with it',
  content: {
    'application/problem+json': {
      schema: {
        type: 'object',
        required: [...ProblemSchema.required],
        properties: {
          ...ProblemSchema.properties,
          mfa_token: { type: 'string', description: 'For POST /v1/auth/signin/mfa' },
          methods: { type: 'array', items: { type: 'string', enum: ['totp', 'webauthn', 'recovery_code'] } },
          expires_in: { type: 'integer', description: 'Seconds the mfa_token works' },
          webauthn_options: { ...requestOptionsSchema, description: `With \`webauthn\` among the methods. ${requestOptionsSchema.description}` },
        },
      },
    },
  },
};

export function authRoutes(deps: {
  signIn: SignInUseCase;
  signOut: SignOutUseCase;
  refreshSession: RefreshSessionUseCase;
  completeMfaSignIn: CompleteMfaSignInUseCase;
  passkeySignInOptions: PasskeySignInOptionsUseCase;
}) {
  return async (app: FastifyInstance): Promise<void> => {
    app.post<{ Body: { username: string; password: string } }>(
      '/auth/signin',
      {
        config: {
          public: true,
          throttle: 'address', passwordWork: true,
          outcome: (status, metrics) => {
            if (status === 200) metrics.signIn('success');
            else if (status === 401) metrics.signIn('failure');
            else if (status === 429) metrics.signIn('throttled');
          },
        },
        schema: {
          operationId: 'signIn',
          tags: ['auth'],
          summary: 'Sign in with username and password',
          description:
            'Returns a JWT access token signed with the service’s key (ES256 by default; RS256 or EdDSA by the key configured), verifiable against /.well-known/jwks.json. Unknown user, wrong password, a locked account and a not-yet-joined ' +
            'user get the same 401. For a user with a second factor (not locked), the right and a wrong password both answer 401 ' +
            '`MFA_REQUIRED`, alike: only the second step tells, and it refuses a wrong password’s ticket as a wrong code. Too many requests from one address: 429 with Retry-After. Besides the contract’s ' +
            'fields the answer carries `refreshToken`, exchanged at POST /v1/auth/refresh for new tokens.',
          security: [],
          body: {
            type: 'object',
            required: ['username', 'password'],
            additionalProperties: false,
            properties: {
              username: { type: 'string', minLength: 1, maxLength: 254 },
              // Refused before any hashing work.
              password: { type: 'string', minLength: 1, maxLength: PASSWORD_MAX_LENGTH },
            },
          },
          response: {
            200: signInResult,
            ...anyRequestProblems,
            401: mfaRequiredProblem,
            ...bodyProblems,
            429: throttledProblem,
            503: unavailableProblem,
          },
        },
      },
      async (request, reply) => {
        try {
          const result = await deps.signIn.execute(request.body);
          return reply.header('cache-control', 'no-store').send(result);
        } catch (error) {
          if (!(error instanceof MfaRequiredError)) throw error;
          return reply
            .code(401)
            .type('application/problem+json')
            .header('cache-control', 'no-store')
            .send({
              ...problem(error.code, error.message),
              mfa_token: error.mfaToken,
              methods: error.methods,
              expires_in: error.expiresInSeconds,
              ...(error.webauthnOptions ? { webauthn_options: error.webauthnOptions } : {}),
            });
        }
      },
    );

    app.post<{ Body: { mfa_token: string; code?: string; recovery_code?: string; webauthn?: unknown } }>(
      '/auth/signin/mfa',
      {
        config: {
          public: true,
          throttle: 'address',
          outcome: (status, metrics) => {
            if (status === 200) metrics.signIn('success');
            else if (status === 400 || status === 401) metrics.signIn('failure');
            else if (status === 429) metrics.signIn('throttled');
          },
        },
        schema: {
          operationId: 'signInWithSecondFactor',
          tags: ['auth'],
          summary: 'Second step of a sign-in: the mfa_token of the password step and a current code, a recovery code or a passkey assertion',
          description:
            'Exactly one of `code` (the authenticator app’s current code; each is accepted once), `recovery_code` ' +
            '(single use; the answer tells how many remain) and `webauthn` (an assertion answering this sign-in’s options; each ' +
            'challenge answers once, and the signature counter must advance). A wrong one is 400 `INVALID_MFA_CODE` and counts against ' +
            'the account’s lockout as a wrong password does; the mfa_token stays usable until it succeeds or expires, or a sign-in of the account begun after it completes first. ' +
            'The mfa_token of a wrong password gets the same 400 whatever is sent, a right code included, and counts the same way. ' +
            'An unknown, used or expired mfa_token: 401 `INVALID_MFA_TOKEN` (sign in again).',
          security: [],
          body: {
            type: 'object',
            required: ['mfa_token'],
            additionalProperties: false,
            properties: {
              mfa_token: { type: 'string', minLength: 1, maxLength: 512 },
              code: totpCodeSchema,
              recovery_code: { type: 'string', minLength: 1, maxLength: 32 },
              webauthn: assertionSchema,
            },
            oneOf: [{ required: ['code'] }, { required: ['recovery_code'] }, { required: ['webauthn'] }],
          },
          response: {
            200: {
              ...signInResult,
              properties: {
                ...signInResult.properties,
                recovery_codes_remaining: { type: 'integer', description: 'Set when a recovery code was used: how many unused ones remain' },
              },
            },
            ...anyRequestProblems,
            400: problemResponse(
              'A wrong, used or old code, a used or unknown recovery code, or an assertion that does not verify, or any of them on the ticket of a wrong password (`INVALID_MFA_CODE`), or a malformed body',
            ),
            401: problemResponse('The mfa_token is unknown, used or expired, or its user cannot sign in any more (`INVALID_MFA_TOKEN`)'),
            ...bodyProblems,
            429: throttledProblem,
            503: unavailableProblem,
          },
        },
      },
      async (request, reply) => {
        const { mfa_token: mfaToken, code, recovery_code: recoveryCode, webauthn } = request.body;
        const result = await deps.completeMfaSignIn.execute({
          mfaToken,
          ...(code !== undefined ? { code } : {}),
          ...(recoveryCode !== undefined ? { recoveryCode } : {}),
          ...(webauthn !== undefined ? { webauthn } : {}),
        });
        const { recoveryCodesRemaining, ...session } = result;
        return reply
          .header('cache-control', 'no-store')
          .send({ ...session, ...(recoveryCodesRemaining !== undefined ? { recovery_codes_remaining: recoveryCodesRemaining } : {}) });
      },
    );

    app.post<{ Body: { mfa_token: string } }>(
      '/auth/signin/mfa/webauthn-options',
      {
        config: { public: true, throttle: 'address' },
        schema: {
          operationId: 'passkeySignInOptions',
          tags: ['auth'],
          summary: 'New WebAuthn assertion options for a sign-in’s second step, while its mfa_token is good',
          description:
            'The password step’s `webauthn_options` answer once; a browser whose attempt failed or was cancelled asks here for new ones. ' +
            'An unknown, used or expired mfa_token: 401 `INVALID_MFA_TOKEN`; a user without a passkey: 409 `MFA_NOT_ENABLED`.',
          security: [],
          body: { type: 'object', required: ['mfa_token'], additionalProperties: false, properties: { mfa_token: { type: 'string', minLength: 1, maxLength: 512 } } },
          response: {
            200: requestOptionsSchema,
            ...anyRequestProblems,
            401: problemResponse('The mfa_token is unknown, used or expired, or its user cannot sign in any more (`INVALID_MFA_TOKEN`)'),
            409: problemResponse('The user holds no passkey (`MFA_NOT_ENABLED`)'),
            ...bodyProblems,
            429: throttledProblem,
            503: unavailableProblem,
          },
        },
      },
      async (request, reply) => {
        const options = await deps.passkeySignInOptions.execute({ mfaToken: request.body.mfa_token });
        return reply.header('cache-control', 'no-store').send(options);
      },
    );

    app.post<{ Body: { refreshToken: string } }>(
      '/auth/refresh',
      {
        config: { public: true, throttle: 'address-failures' },
        schema: {
          operationId: 'refreshSession',
          tags: ['auth'],
          summary: 'Exchange a refresh token for a new access token and the next refresh token',
          description:
            'Each refresh token works once (rotation). A used one presented again means two parties hold it: every token ' +
            'of its sign-in is revoked (RFC 9700 §4.14.2; see REFRESH_TOKEN_REUSE_GRACE). Unknown, expired, used and ' +
            'revoked tokens, and tokens of a user who signed out, changed the password or was deactivated or deleted since, ' +
            'all get the same 401.',
          security: [],
          body: {
            type: 'object',
            required: ['refreshToken'],
            additionalProperties: false,
            properties: { refreshToken: { type: 'string', minLength: 1, maxLength: REFRESH_TOKEN_MAX_LENGTH } },
          },
          response: {
            200: sessionTokensResponse('The new tokens; the refresh token sent is used up'),
            ...anyRequestProblems,
            401: problemResponse('The refresh token cannot be exchanged (whatever the reason: one answer for all); sign in again'),
            ...bodyProblems,
            429: throttledProblem,
            503: unavailableProblem,
          },
        },
      },
      async (request, reply) => {
        const tokens = await deps.refreshSession.execute({ refreshToken: request.body.refreshToken });
        return reply.header('cache-control', 'no-store').send(tokens);
      },
    );

    app.post(
      '/auth/signout',
      {
        // An enrollment-only token may end its own session (as DELETE /v1/auth/console-session may): signing out
        // only ever narrows access.
        config: { mfaEnrollment: true },
        schema: {
          operationId: 'signOut',
          tags: ['auth'],
          summary: 'Sign out: every access and refresh token of the caller stops working at once, on every replica',
          description:
            'Bumps the caller’s token version: all of its tokens (every device), refresh tokens included, are refused from now on. ' +
            'A service account’s token has no session: 204, nothing changes (it ends at its expiry, or by disabling the account).',
          security: [{ bearerAuth: [] }],
          response: { 204: { description: 'Signed out', type: 'null' }, ...protectedProblems, ...bodyProblems },
        },
      },
      async (request, reply) => {
        await deps.signOut.execute({ actor: await app.authenticate(request) });
        return reply.code(204).send();
      },
    );
  };
}
