import type { Server } from 'node:http';
import net, { type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { sleepUnlessAborted as sleep } from '../../../infrastructure/system/backoff';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * After the drain: stops listening and resolves once every connection has ended. Each request
     * on its way is answered, and its connection closes after that answer.
     */
    drainConnections(): Promise<void>;
  }
}

export interface ConnectionDrainingOptions {
  /** `isDraining` is true from SIGTERM on (the readiness that /readyz reports). */
  shutdown: { readonly isDraining: boolean };
}

/**
 * Closing a listener resets the connections the kernel has accepted for it and the process has not
 * taken yet, with their requests. While answers are held nobody has a reason to connect; a
 * listener that has seen no new connection for this long has none waiting.
 */
const QUIET_MS = 50;
/** A client that keeps opening connections while its others wait (an unbounded pool) gets no quiet moment: stop waiting for one after this. */
const QUIET_WAIT_MAX_MS = 1_000;
/** A client writes its request as soon as it has connected; a connection silent this long was opened ahead of need (a browser's preconnect). */
const FIRST_REQUEST_WAIT_MS = 1_000;

interface Connection {
  requests: number;
  inFlight: number;
}

/**
 * Shutdown without resetting keep-alive clients. A client only learns not to reuse a connection
 * from an answer on it that says `Connection: close`; a connection the server closes between two
 * answers resets whatever request the client was writing on it then. So from SIGTERM on every
 * answer says close (the client reconnects for its next request while the listener is still there),
 * and after the drain the listener closes first, at a quiet moment: connecting is then refused,
 * which tells a client that nothing was sent.
 */
async function connectionDraining(app: FastifyInstance, options: ConnectionDrainingOptions): Promise<void> {
  const connections = new Map<Socket, Connection>();
  let lastConnectionAt = 0;
  let answersHeld: Promise<void> | undefined;

  app.server.on('connection', (socket: Socket) => {
    lastConnectionAt = performance.now();
    connections.set(socket, { requests: 0, inFlight: 0 });
    socket.once('close', () => connections.delete(socket));
  });
  app.server.on('request', (request, response) => {
    const connection = connections.get(request.socket);
    if (!connection) return;
    connection.requests++;
    connection.inFlight++;
    response.once('close', () => connection.inFlight--);
  });

  // At send time rather than on arrival, so that an answer to a request that came in before SIGTERM says close too.
  app.addHook('onSend', async (_request, reply) => {
    if (!options.shutdown.isDraining) return;
    reply.header('connection', 'close');
    if (answersHeld) await answersHeld;
  });

  app.decorate('drainConnections', async function drainConnections(this: FastifyInstance) {
    const server: Server = this.server;
    if (!server.listening) return;

    // A client connects again when an answer that said close reaches it: with answers held, the
    // connections still to come are those whose answers went out just before.
    let releaseAnswers: () => void = () => {};
    answersHeld = new Promise<void>((resolve) => (releaseAnswers = resolve));
    const holdingSince = performance.now();
    const quietFor = () => performance.now() - lastConnectionAt;
    while (quietFor() < QUIET_MS && performance.now() - holdingSince < QUIET_WAIT_MAX_MS) await sleep(QUIET_MS - quietFor());

    // http.Server#close() would also close every connection with no request in progress, including
    // one whose request is in the socket's buffer, not read yet: a reset. The listener alone closes
    // here; its callback comes once the last connection has ended.
    const ended = new Promise<void>((resolve) => net.Server.prototype.close.call(server, () => resolve()));
    releaseAnswers();

    const closeIdle = (used: boolean): number => {
      let closed = 0;
      for (const [socket, connection] of connections) {
        if (connection.inFlight > 0 || socket.writableEnded || (connection.requests > 0) !== used) continue;
        socket.destroy();
        closed++;
      }
      return closed;
    };
    // Kept alive by its last answer and idle through the whole drain: no answer is left to say close on it.
    const idleClosed = closeIdle(true);
    // Accepted but nothing read yet: the client connected to send a request, which gets answered.
    const silent = setTimeout(() => closeIdle(false), FIRST_REQUEST_WAIT_MS);
    silent.unref();
    this.log.info({ open: connections.size - idleClosed, idleClosed }, 'stopped listening; open connections close after their answers');
    await ended;
    clearTimeout(silent);
  });
}

export default fp(connectionDraining, { name: 'connection-draining' });
