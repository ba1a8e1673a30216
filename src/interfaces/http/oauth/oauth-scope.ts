import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { toProblem } from '../error-handler';
import { readFormBodiesOnly } from '../form-body';
import { type OAuthError, toOAuthError } from './oauth-error';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * An OAuth endpoint (a route of a scope `answerAsOAuth` set up): what refuses it before its scope's error handler
     * can (a wrong method, answered at the root) answers in OAuth's format too.
     */
    oauth?: boolean;
  }
}

/**
 * Makes `app` (an encapsulated scope) answer as OAuth's endpoints do: form bodies only (a JSON body is
 * refused, not parsed; a parameter without a value is not there), every refusal RFC 6749 §5.2 JSON `{error, error_description}` (never problem+json),
 * and `Cache-Control: no-store` with `Pragma: no-cache` on every answer, the throttle's included.
 * `refine` turns an error the default mapping would answer otherwise into an OAuth error of the endpoint's own.
 */
export function answerAsOAuth(app: FastifyInstance, refine: (error: unknown) => OAuthError | undefined = () => undefined): void {
  // RFC 6749 §3.1: "Parameters sent without a value MUST be treated as if they were omitted from the request."
  readFormBodiesOnly(app, { omitEmpty: true });
  // The root's onRoute hooks run before this scope's, so a route marks itself; this only checks that it did.
  app.addHook('onRoute', (route) => {
    if (route.config?.oauth !== true) throw new Error(`${route.method} ${route.url} answers as OAuth: its config needs oauth: true`);
  });
  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const { problem, headers } = toProblem(error);
    const refusal = refine(error) ?? toOAuthError(error, { code: problem.code, status: problem.status, headers });
    if (refusal.status >= 500) request.log.error({ err: error }, 'request failed');
    else request.log.info({ error: refusal.error, status: refusal.status }, 'request refused');
    return sendOAuthError(reply, refusal);
  });
  app.addHook('onSend', async (_request, reply) => {
    neverCached(reply);
  });
}

/** A refusal as RFC 6749 §5.2 has it, `{error, error_description}` JSON, never cached: from any scope, the root's too. */
export function sendOAuthError(reply: FastifyReply, refusal: OAuthError): FastifyReply {
  return neverCached(reply.code(refusal.status).headers(refusal.headers))
    .type('application/json')
    .send({ error: refusal.error, error_description: refusal.description });
}

function neverCached(reply: FastifyReply): FastifyReply {
  return reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
}
