/**
 * Slow and greedy clients over real sockets against the real server: a request trickled byte by byte, a silent
 * connection, and one client opening more connections than it may (review of the HTTP edge, item 1).
 */
import { closedWithin, openRaw, type RawConnection, rawGet } from '../../support/raw-connection';
import { useEdgeApp } from './edge-app';

jest.setTimeout(30_000);

/**
 * Node's checks run every second, so a bound holds to within one check; the other 2 s are for a loaded 2-core machine
 * running the whole suite, whose event loops lag (CI once saw 5 023 ms for the 3 s bound with 2 s of slack). A server
 * without the bound keeps the trickled connection open for minutes, far past this.
 */
const SLACK_MS = 3_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Writes `text` a byte every `everyMs` while the connection is open. */
async function trickle(connection: RawConnection, text: string, everyMs: number): Promise<void> {
  for (const byte of text) {
    if (connection.socket.destroyed) return;
    connection.write(byte);
    await sleep(everyMs);
  }
}

/** The connection is closed within `boundMs` (and a bit), with a 408 REQUEST_TIMEOUT when `answered`. */
async function expectClosedWithin(connection: RawConnection, boundMs: number, answered = true): Promise<void> {
  const closed = await closedWithin(connection, boundMs + SLACK_MS + 2_000);
  connection.socket.destroy();
  expect(closed).toBeDefined();
  expect(closed!.afterMs).toBeLessThan(boundMs + SLACK_MS);
  if (!answered) return;
  expect(closed!.text).toMatch(/^HTTP\/1\.1 408 /);
  expect(closed!.text).toContain('"code":"REQUEST_TIMEOUT"');
}

describe('request timeouts (REQUEST_TIMEOUT=3s, HEADERS_TIMEOUT=1s)', () => {
  const app = useEdgeApp({ REQUEST_TIMEOUT: '3s', HEADERS_TIMEOUT: '1s' });

  it('answers 408 REQUEST_TIMEOUT and closes when a body is trickled past REQUEST_TIMEOUT', async () => {
    const connection = await openRaw(app().url);
    connection.write('POST /v1/auth/signin HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 10000\r\n\r\n');
    void trickle(connection, '{'.padEnd(10_000, ' '), 200);
    await expectClosedWithin(connection, 3_000);
  });

  it('answers 408 REQUEST_TIMEOUT and closes when a head is trickled past HEADERS_TIMEOUT', async () => {
    const connection = await openRaw(app().url);
    void trickle(connection, 'GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: '.padEnd(2_000, 'a'), 100);
    await expectClosedWithin(connection, 1_000);
  });

  it('closes a connection that sends nothing within HEADERS_TIMEOUT', async () => {
    await expectClosedWithin(await openRaw(app().url), 1_000, false);
  });
});

describe('connection caps (MAX_CONNECTIONS=6, MAX_CONNECTIONS_PER_ADDRESS=4)', () => {
  const app = useEdgeApp({ MAX_CONNECTIONS: '6', MAX_CONNECTIONS_PER_ADDRESS: '4' });
  const open: RawConnection[] = [];
  afterAll(() => {
    for (const connection of open) connection.socket.destroy();
  });
  const connect = async (from: string) => {
    const connection = await openRaw(app().url, from);
    open.push(connection);
    return connection;
  };

  it('closes at once a connection past one address’s cap or the listener’s, serves other addresses, and the management port stays reachable', async () => {
    const first = await Promise.all([1, 2, 3, 4].map(() => connect('127.0.0.1')));
    for (const connection of first) expect(await rawGet(connection, '/healthz')).toBe('HTTP/1.1 200 OK');

    const fifth = await connect('127.0.0.1');
    const refused = await closedWithin(fifth, 1_000);
    expect(refused).toEqual({ afterMs: expect.any(Number), text: '' });

    // Another address is another client: up to the listener's cap.
    const others = await Promise.all([1, 2].map(() => connect('127.0.0.2')));
    for (const connection of others) expect(await rawGet(connection, '/healthz')).toBe('HTTP/1.1 200 OK');
    const pastCap = await connect('127.0.0.3');
    expect(await closedWithin(pastCap, 1_000)).toEqual({ afterMs: expect.any(Number), text: '' });

    // The probes and /metrics are on a listener of their own.
    expect((await fetch(`${app().api.metricsUrl}/healthz`)).status).toBe(200);

    // A connection closed frees its place.
    first[0]!.socket.destroy();
    await first[0]!.closed;
    await sleep(100);
    const again = await connect('127.0.0.1');
    expect(await rawGet(again, '/healthz')).toBe('HTTP/1.1 200 OK');
  });
});

describe('a trusted proxy (TRUSTED_PROXIES=127.0.0.1, MAX_CONNECTIONS_PER_ADDRESS=2)', () => {
  const app = useEdgeApp({ TRUSTED_PROXIES: '127.0.0.1', MAX_CONNECTIONS_PER_ADDRESS: '2' });

  it('has no per-address cap: it carries many clients', async () => {
    const connections = await Promise.all([1, 2, 3, 4, 5].map(() => openRaw(app().url, '127.0.0.1')));
    try {
      for (const connection of connections) expect(await rawGet(connection, '/healthz')).toBe('HTTP/1.1 200 OK');
      const direct = await Promise.all([1, 2, 3].map(() => openRaw(app().url, '127.0.0.2')));
      connections.push(...direct);
      expect(await closedWithin(direct[2]!, 1_000)).toEqual({ afterMs: expect.any(Number), text: '' });
    } finally {
      for (const connection of connections) connection.socket.destroy();
    }
  });
});
