import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpProblemError } from './problem';

/** Methods whose body fastify never reads: a coding on one changes nothing. */
const BODYLESS = new Set(['GET', 'HEAD']);

/** Whether the request carries a body: a Content-Length above 0, or a chunked one. */
const hasBody = (request: FastifyRequest): boolean =>
  request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0;

/**
 * A body is read as sent: a content-coding (`Content-Encoding: gzip`, `br`, …) is none the service undoes, so a request
 * body with one other than `identity` is 415 UNSUPPORTED_MEDIA_TYPE with `Accept-Encoding: identity` (RFC 9110 §8.4.1,
 * §12.5.3), before it is parsed: as it was, gzip bytes were called malformed JSON, and `br` on plain JSON was obeyed
 * as if the header said nothing. The coding itself is not echoed.
 */
export function refuseContentCodings(app: FastifyInstance): void {
  app.addHook('preParsing', async (request) => {
    const coding = request.headers['content-encoding'];
    if (coding === undefined || BODYLESS.has(request.method) || !hasBody(request)) return;
    const codings = coding.split(',').map((c) => c.trim().toLowerCase()).filter(Boolean);
    if (codings.every((c) => c === 'identity')) return;
    throw new HttpProblemError('UNSUPPORTED_MEDIA_TYPE', 'A request body must not be content-coded: send it with no Content-Encoding (or identity)', {
      'accept-encoding': 'identity',
    });
  });
}
