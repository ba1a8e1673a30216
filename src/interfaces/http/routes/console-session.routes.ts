import type { FastifyInstance, FastifyReply } from 'fastify';
import type { RefreshSessionUseCase, SessionBounds } from '../../../application/auth/refresh-session.use-case';
import { InvalidRefreshTokenError } from '../../../application/auth/session.errors';
import type { SignOutUseCase } from '../../../application/auth/sign-out.use-case';
import {
  assertSameOrigin,
  clearedSessionCookie,
  CONSOLE_HEADER,
  CONSOLE_SESSION_COOKIE,
  CONSOLE_SESSION_PATH,
  reachedOverHttps,
  sessionCookie,
  sessionCookieValue,
} from '../console/session-cookie';
import { anyRequestProblems, bodyProblems, problemResponse, protectedProblems, throttledProblem, unavailableProblem } from '../schemas';
import { refusedWithoutGuessing } from '../plugins/rate-limits';

const consoleHeader = {
  type: 'object',
  required: [CONSOLE_HEADER],
  properties: { [CONSOLE_HEADER]: { type: 'string', const: '1', description: 'Always `1`: the CSRF defence (docs/DECISIONS.md)' } },
} as const;

const accessTokenAnswer = {
  description: 'The access token, kept in the console’s memory only; the refresh token went into the cookie',
  headers: {
    'set-cookie': { type: 'string', description: `\`${CONSOLE_SESSION_COOKIE}\`: HttpOnly, SameSite=Strict, Path=${CONSOLE_SESSION_PATH}, Max-Age the session's idle end (CONSOLE_SESSION_IDLE_TTL)` },
  },
  type: 'object',
  required: ['accessToken'],
  additionalProperties: false,
  properties: { accessToken: { type: 'string', description: 'Bearer token (a JWT), as sign-in gives it' } },
} as const;

const refusedAnswer = problemResponse(
  'The refresh token cannot be exchanged (`INVALID_REFRESH_TOKEN`, one answer for all; the cookie is cleared), among them one whose sign-in was ' +
    'CONSOLE_SESSION_TTL ago or whose last renewal CONSOLE_SESSION_IDLE_TTL ago: sign in again',
);
const crossSiteAnswer = problemResponse('The request comes from another origin (`CROSS_SITE_REQUEST`): `Origin` or `Sec-Fetch-Site` says so');

/**
 * The admin console's session (#25): the sign-in's refresh token handed into an HttpOnly cookie, exchanged from
 * it, and ended. The exchanges are POST /v1/auth/refresh's use case, the end POST /v1/auth/signout's: one code
 * path each, the cookie is only where the token travels. An administrator's session is shorter than an app's:
 * `session` bounds it from the sign-in and from the last renewal (CONSOLE_SESSION_TTL, CONSOLE_SESSION_IDLE_TTL),
 * on the server, and the cookie lives no longer than the idle end, so a browser left alone forgets it.
 */
export function consoleSessionRoutes(deps: { refreshSession: RefreshSessionUseCase; signOut: SignOutUseCase; publicUrl: string; session: SessionBounds }) {
  return async (app: FastifyInstance): Promise<void> => {
    /** Rotates `refreshToken`: the one a script saw is used up, its successor lives in the cookie only. */
    const exchange = async (refreshToken: string, reply: FastifyReply) => {
      const secure = reachedOverHttps(reply.request, deps.publicUrl);
      try {
        const tokens = await deps.refreshSession.execute({ refreshToken, within: deps.session });
        return reply
          .header('cache-control', 'no-store')
          .header('set-cookie', sessionCookie(tokens.refreshToken, { secure, maxAgeSeconds: deps.session.idleSeconds }))
          .send({ accessToken: tokens.accessToken });
      } catch (error) {
        if (error instanceof InvalidRefreshTokenError) reply.header('set-cookie', clearedSessionCookie(secure));
        throw error;
      }
    };

    app.post<{ Body: { refreshToken: string } }>(
      CONSOLE_SESSION_PATH.replace('/v1', ''),
      {
        config: { public: true, throttle: 'address' },
        schema: {
          operationId: 'startConsoleSession',
          tags: ['auth'],
          summary: 'The console’s session: hand the refresh token of a sign-in over to an HttpOnly cookie',
          description:
            'The refresh token of POST /v1/auth/signin (or /signin/mfa) is exchanged at once, as POST /v1/auth/refresh ' +
            'would: the token given is used up, its successor is set in a cookie no page script can read, scoped to ' +
            `${CONSOLE_SESSION_PATH}. Needs the \`${CONSOLE_HEADER}: 1\` header; a browser request from another origin is 403.`,
          security: [],
          headers: consoleHeader,
          body: {
            type: 'object',
            required: ['refreshToken'],
            additionalProperties: false,
            properties: { refreshToken: { type: 'string', minLength: 1, maxLength: 128 } },
          },
          response: { 200: accessTokenAnswer, ...anyRequestProblems, 401: refusedAnswer, 403: crossSiteAnswer, ...bodyProblems, 429: throttledProblem, 503: unavailableProblem },
        },
      },
      async (request, reply) => {
        assertSameOrigin(request, deps.publicUrl);
        return exchange(request.body.refreshToken, reply);
      },
    );

    app.post(
      `${CONSOLE_SESSION_PATH.replace('/v1', '')}/refresh`,
      {
        config: { public: true, throttle: 'address-failures' },
        schema: {
          operationId: 'refreshConsoleSession',
          tags: ['auth'],
          summary: 'The console’s session: a new access token for the refresh token in the cookie, which is rotated',
          description:
            `Reads the \`${CONSOLE_SESSION_COOKIE}\` cookie (no body), exchanges it as POST /v1/auth/refresh does and sets its ` +
            `successor. Needs the \`${CONSOLE_HEADER}: 1\` header; a browser request from another origin is 403.`,
          security: [],
          headers: consoleHeader,
          response: { 200: accessTokenAnswer, ...anyRequestProblems, 401: refusedAnswer, 403: crossSiteAnswer, ...bodyProblems, 429: throttledProblem, 503: unavailableProblem },
        },
      },
      async (request, reply) => {
        assertSameOrigin(request, deps.publicUrl);
        const token = sessionCookieValue(request.headers.cookie);
        if (token === null) {
          // No session to renew (the console's first load): a 401 that guessed nothing, so it spends no refused refresh.
          refusedWithoutGuessing(request);
          reply.header('set-cookie', clearedSessionCookie(reachedOverHttps(request, deps.publicUrl)));
          throw new InvalidRefreshTokenError();
        }
        return exchange(token, reply);
      },
    );

    app.delete(
      CONSOLE_SESSION_PATH.replace('/v1', ''),
      {
        // Whoever must enroll a factor first may still sign out.
        config: { mfaEnrollment: true },
        schema: {
          operationId: 'endConsoleSession',
          tags: ['auth'],
          summary: 'The console’s sign-out: POST /v1/auth/signout, and the cookie cleared',
          description: 'Every access and refresh token of the caller stops working at once (as POST /v1/auth/signout), and the session cookie is cleared.',
          security: [{ bearerAuth: [] }],
          response: { 204: { description: 'Signed out; the cookie is cleared', type: 'null' }, ...protectedProblems, ...bodyProblems },
        },
      },
      async (request, reply) => {
        await deps.signOut.execute({ actor: await app.authenticate(request) });
        return reply.code(204).header('set-cookie', clearedSessionCookie(reachedOverHttps(request, deps.publicUrl))).send();
      },
    );
  };
}
