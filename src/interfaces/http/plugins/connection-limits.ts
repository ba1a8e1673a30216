import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { proxyAddressMatcher } from '../../../infrastructure/config/proxy-addresses';
import { openFileLimit } from '../../../infrastructure/system/open-file-limit';

export interface ConnectionLimitsOptions {
  /** MAX_CONNECTIONS: at once on the listener, from everyone. */
  maxConnections: number;
  /** MAX_CONNECTIONS_PER_ADDRESS: at once from one client address (0: none). */
  perAddress: number;
  /** TRUSTED_PROXIES: a proxy carries many clients' requests, so it has no per-address limit. */
  trustedProxies: readonly string[];
}

/**
 * Open files kept beside the listener's connections: the database pool, Kafka, the mail and key files, the
 * management port (its probes and /metrics stay reachable when PORT is full).
 */
export const RESERVED_FILES = 512;

/** The listener's cap: MAX_CONNECTIONS, never so many that the process runs out of open files. */
export function connectionCap(maxConnections: number, fileLimit = openFileLimit()): number {
  return fileLimit === undefined ? maxConnections : Math.max(1, Math.min(maxConnections, fileLimit - RESERVED_FILES));
}

/**
 * Bounds on the connections one client, and all of them, hold at once. Past the listener's cap Node closes a new
 * connection as soon as it is accepted (server.maxConnections); past one address's, it is closed here, before
 * anything is read from it. Either way nothing is answered: the client learns it from the closed socket.
 */
async function connectionLimits(app: FastifyInstance, options: ConnectionLimitsOptions): Promise<void> {
  const server: Server = app.server;
  server.maxConnections = connectionCap(options.maxConnections);
  if (options.perAddress === 0) return;
  const trusted = proxyAddressMatcher(options.trustedProxies);
  const open = new Map<string, number>();
  let refusedSince = 0;
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    if (address === undefined || trusted(address)) return;
    const count = open.get(address) ?? 0;
    if (count >= options.perAddress) {
      socket.destroy();
      // One line a minute at most: a client that keeps trying must not make a line per attempt.
      if (Date.now() - refusedSince > 60_000) {
        refusedSince = Date.now();
        app.log.warn({ limit: options.perAddress }, 'a client address reached MAX_CONNECTIONS_PER_ADDRESS; its new connections are closed');
      }
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left === 0) open.delete(address);
      else open.set(address, left);
    });
  });
}

export default fp(connectionLimits, { name: 'connection-limits' });
