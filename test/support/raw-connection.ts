import net from 'node:net';
import { performance } from 'node:perf_hooks';

/** A TCP connection to the service written byte by byte, as a slow or hostile client would, with what came back. */
export interface RawConnection {
  socket: net.Socket;
  /** Everything received so far, as text. */
  received(): string;
  /** Resolves when the server has closed the connection (or reset it): what it sent, and when, from the connect. */
  closed: Promise<{ afterMs: number; text: string }>;
  /** Writes `text`, unless the connection is closed already. */
  write(text: string): void;
}

/** Connects to `url`'s host and port, from `localAddress` when given (127.0.0.2 is another client on loopback). */
export function openRaw(url: string, localAddress?: string): Promise<RawConnection> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const chunks: Buffer[] = [];
    const socket = net.connect({ host: hostname, port: Number(port), localAddress });
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    const received = () => Buffer.concat(chunks).toString('latin1');
    const closed = new Promise<{ afterMs: number; text: string }>((done) => {
      socket.once('close', () => done({ afterMs: performance.now() - started, text: received() }));
    });
    socket.once('error', (error) => {
      if (!socket.connecting) return; // a reset after the connect: `closed` tells
      reject(error);
    });
    socket.once('connect', () =>
      resolve({ socket, received, closed, write: (text) => void (socket.destroyed || socket.write(text, 'latin1')) }),
    );
  });
}

/** Resolves to `closed`'s value, or to undefined when the server has not closed the connection within `ms`. */
export async function closedWithin(connection: RawConnection, ms: number): Promise<{ afterMs: number; text: string } | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  try {
    return await Promise.race([connection.closed, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Writes a GET on a raw connection and resolves to the status line once an answer's head has come. */
export async function rawGet(connection: RawConnection, path: string): Promise<string> {
  connection.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
  for (let waited = 0; waited < 5_000; waited += 20) {
    const text = connection.received();
    if (text.includes('\r\n\r\n')) return text.slice(0, text.indexOf('\r\n'));
    if (connection.socket.destroyed) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return connection.received().split('\r\n')[0] ?? '';
}
