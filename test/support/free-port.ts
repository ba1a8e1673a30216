import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** Ports below this are left to the services of the machine. */
const LOWEST = 10_000;

/**
 * Where the kernel takes the ports of outgoing connections (Linux's ip_local_port_range; its default elsewhere).
 * A port picked in it is free when asked, and may be a client socket's (a worker's database or broker connection)
 * by the time the server binds it: the api then fails with EADDRINUSE.
 */
function ephemeralStart(): number {
  try {
    const start = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(start) && start > 0) return start;
  } catch {
    // Not Linux: the IANA range's start.
  }
  return 49_152;
}

/** Whether a server can listen on `port` on every address now (`0`: the OS picks one); the port bound, or null. */
function tryListen(port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(null));
    server.listen(port, '0.0.0.0', () => {
      const address = server.address();
      const bound = typeof address === 'object' && address ? address.port : null;
      server.close(() => resolve(bound));
    });
  });
}

/**
 * A port nothing listens on at the time of asking, drawn at random below the range of outgoing connections, so
 * none of them can take it before the server that asked binds it (tests run side by side, each with its clients).
 * Falls back to a port the OS picks when the range leaves no room below it.
 */
export async function freePort(): Promise<number> {
  const end = ephemeralStart();
  if (end - LOWEST >= 1_000) {
    for (let tries = 0; tries < 50; tries++) {
      const port = await tryListen(LOWEST + Math.floor(Math.random() * (end - LOWEST)));
      if (port !== null) return port;
    }
  }
  const picked = await tryListen(0);
  if (picked === null) throw new Error('could not pick a free port');
  return picked;
}
