import type { FastifyInstance } from 'fastify';
import { fieldCount } from './plugins/authentication';
import { HttpProblemError } from './problem';

/**
 * Heads Node's parser takes and HTTP/1.1 refuses, 400 MALFORMED_REQUEST before anything else runs: `Host` twice
 * (RFC 9112 §3.2: a server MUST answer 400; Node kept one, and a proxy may have routed by the other), and a request
 * line of another major version (`HTTP/2.0` over an HTTP/1.1 connection, which this server cannot speak). The
 * connection is closed after the answer.
 */
export function refuseAmbiguousHeads(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    const problem = request.raw.httpVersionMajor !== 1
      ? 'Only HTTP/1.0 and HTTP/1.1 are served on this connection'
      : fieldCount(request.raw.rawHeaders, 'host') > 1 ? 'Host is given more than once' : undefined;
    if (problem === undefined) return;
    // What else the client sent on this connection is read no further.
    reply.header('connection', 'close');
    throw new HttpProblemError('MALFORMED_REQUEST', problem);
  });
}
