import type { FastifyInstance } from 'fastify';
import type { ConfirmPasswordResetUseCase } from '../../../application/password-reset/confirm-password-reset.use-case';
import type { RequestPasswordResetUseCase } from '../../../application/password-reset/request-password-reset.use-case';
import { AfterAnswer, AfterAnswerFullError } from '../after-answer';
import { PASSWORD_MAX_LENGTH } from '../../../domain/users/password-policy';
import { HttpProblemError } from '../problem';
import { anyRequestProblems, bodyProblems, problemResponse, throttledProblem, unavailableProblem } from '../schemas';

/** The one answer to every reset request, whatever the address: nothing in it tells whether an account exists. */
export const PASSWORD_RESET_ACCEPTED = {
  message: 'If an active account has this address, a link to choose a new password is on its way.',
} as const;

/** Look-ups owed after their answers at most, and how long a request beyond waits for room before its 503. */
const OWED_LOOKUPS = 100;
const ROOM_WAIT_SECONDS = 5;
/**
 * Attempts of an owed look-up: the first ones 0.1 s apart, doubling to 10 s, then every 10 s, about half an hour in
 * all. A database away longer than that after the answer, or the process stopped meanwhile, loses the request.
 */
const LOOKUP_ATTEMPTS = 190;

export function passwordResetRoutes(deps: {
  requestPasswordReset: RequestPasswordResetUseCase;
  confirmPasswordReset: ConfirmPasswordResetUseCase;
  /** Whether the database answers now (Readiness): a request is accepted only then. */
  databaseAnswers: () => Promise<boolean>;
}) {
  return async (app: FastifyInstance): Promise<void> => {
    // The look-up runs after the answer: its time (a write for a known address only) is not the answer's. At most
    // OWED_LOOKUPS are owed at once; a request beyond waits for room, and is refused (503) after ROOM_WAIT_SECONDS.
    const afterAnswer = new AfterAnswer({ logger: app.log, maxPending: OWED_LOOKUPS, admitTimeoutMs: ROOM_WAIT_SECONDS * 1000, maxAttempts: LOOKUP_ATTEMPTS });
    app.addHook('onClose', () => afterAnswer.drain());

    app.post<{ Body: { email: string } }>(
      '/auth/password-reset',
      {
        // Per client address (the sign-in budget) and per target address: a mailbox is not flooded from many clients.
        config: { public: true, throttle: ['address', 'reset-email'] },
        schema: {
          operationId: 'requestPasswordReset',
          tags: ['auth'],
          summary: 'Ask for a password-reset link by mail',
          description:
            'Always 202 with the same body, whether or not an active account has the address (and for pending or deactivated ' +
            'users). For an active user the mailer sends a single-use link (PASSWORD_RESET_TTL); a newer request replaces an ' +
            'older link. The address is looked up after the answer, so its time is the same for every address. Limited per ' +
            'client address (ADDRESS_RATE_LIMIT) and per target address (PASSWORD_RESET_RATE_LIMIT). While ' +
            `${OWED_LOOKUPS} look-ups are still owed, a request waits for room, and is answered 503 (Retry-After) after ` +
            `${ROOM_WAIT_SECONDS} s without any. While the database does not answer, every request is answered 503 (Retry-After), ` +
            'whatever the address: a 202 is a promise the look-up can keep.',
          security: [],
          body: {
            type: 'object',
            required: ['email'],
            additionalProperties: false,
            properties: { email: { type: 'string', minLength: 1, maxLength: 254 } },
          },
          response: {
            202: {
              description: 'Accepted; a mail follows when an active account has the address',
              type: 'object',
              required: ['message'],
              properties: { message: { type: 'string' } },
            },
            ...anyRequestProblems,
            ...bodyProblems,
            429: throttledProblem,
            503: unavailableProblem,
          },
        },
      },
      async (request, reply) => {
        const accepted = await deps.requestPasswordReset.execute({ email: request.body.email });
        // Accepted only while the database answers: an answer of 202 during an outage would promise a mail that the
        // look-up, retried for a while and then given up, might never send. The same check for every address, so
        // neither the answer nor its time says anything of accounts.
        if (!(await deps.databaseAnswers())) {
          throw new HttpProblemError('SERVICE_UNAVAILABLE', 'The service cannot take password-reset requests right now; try again shortly', { 'retry-after': '5' });
        }
        try {
          await afterAnswer.admit('password-reset request', () => accepted.record());
        } catch (error) {
          if (!(error instanceof AfterAnswerFullError)) throw error;
          throw new HttpProblemError('SERVICE_UNAVAILABLE', 'Too many password-reset requests are being handled; try again shortly', { 'retry-after': '2' });
        }
        return reply.code(202).header('cache-control', 'no-store').send(PASSWORD_RESET_ACCEPTED);
      },
    );

    app.post<{ Body: { token: string; password: string } }>(
      '/auth/password-reset/confirm',
      {
        // Anonymous, and it hashes a password, as sign-in does: it spends the same per-address budget.
        config: { public: true, throttle: 'address', passwordWork: true },
        schema: {
          operationId: 'confirmPasswordReset',
          tags: ['auth'],
          summary: 'Set a new password with the token of a reset link',
          description:
            'No bearer token: the single-use token from the link authenticates. The password policy is the one of accepting ' +
            'an invitation. Every access and refresh token of the user ends, and the sign-in lockout is cleared. Unknown token ' +
            '→ 404, used or expired → 410 (as invitations).',
          security: [],
          body: {
            type: 'object',
            required: ['token', 'password'],
            additionalProperties: false,
            properties: {
              token: { type: 'string', minLength: 1, maxLength: 200 },
              password: { type: 'string', maxLength: PASSWORD_MAX_LENGTH },
            },
          },
          response: {
            204: { description: 'The password is set; sign in with it', type: 'null' },
            ...anyRequestProblems,
            404: problemResponse('No reset link has this token'),
            410: problemResponse('The link has expired, or has been used'),
            ...bodyProblems,
            429: throttledProblem,
            503: unavailableProblem,
          },
        },
      },
      async (request, reply) => {
        await deps.confirmPasswordReset.execute(request.body);
        return reply.code(204).header('cache-control', 'no-store').send();
      },
    );
  };
}
