import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { toProblem } from '../error-handler';
import { readFormBodiesOnly } from '../form-body';
import { type OAuthError, toOAuthError } from './oauth-error';

/**
 * Makes `app` (an encapsulated scope) answer as OAuth's endpoints do: form bodies only (a JSON body is
 * refused, not parsed), every refusal RFC 6749 §5.2 JSON `{error, error_description}` (never problem+json),
 * and `Cache-Control: no-store` with `Pragma: no-cache` on every answer, the throttle's included.
 * `refine` turns an error the default mapping would answer otherwise into an OAuth error of the endpoint's own.
 */
export function answerAsOAuth(app: FastifyInstance, refine: (error: unknown) => OAuthError | undefined = () => undefined): void {
  readFormBodiesOnly(app);
  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const { problem, headers } = toProblem(error);
    const refusal = refine(error) ?? toOAuthError(error, { code: problem.code, status: problem.status, headers });
    if (refusal.status >= 500) request.log.error({ err: error }, 'request failed');
    else request.log.info({ error: refusal.error, status: refusal.status }, 'request refused');
    return reply
      .code(refusal.status)
      .headers(refusal.headers)
      .type('application/json')
      .send({ error: refusal.error, error_description: refusal.description });
  });
  app.addHook('onSend', async (_request, reply) => {
    reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
  });
}
