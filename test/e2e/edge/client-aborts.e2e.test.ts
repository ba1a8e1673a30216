/**
 * A client that leaves mid-request is no fault of the service: no error-level line, which alerts would count
 * (review of the HTTP edge, item 8). Real errors stay at error (test/e2e/security/faults).
 */
import { openRaw } from '../../support/raw-connection';
import { useEdgeApp } from './edge-app';

describe('a client that disconnects mid-request', () => {
  const lines: { level: number; msg?: string; err?: unknown; stack?: string }[] = [];
  const app = useEdgeApp({ LOG_LEVEL: 'info' }, { write: (line) => void lines.push(JSON.parse(line)) });

  it('is logged at info without a stack, never at error', async () => {
    const connection = await openRaw(app().url);
    connection.write('POST /v1/auth/signin HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"username":');
    await new Promise((resolve) => setTimeout(resolve, 200));
    connection.socket.destroy();
    await connection.closed;
    await new Promise((resolve) => setTimeout(resolve, 500));

    const errors = lines.filter((line) => line.level >= 50);
    expect(errors).toEqual([]);
    const aborted = lines.filter((line) => /aborted|closed the connection/i.test(JSON.stringify(line)));
    expect(aborted.length).toBeGreaterThan(0);
    for (const line of aborted) {
      expect(line.level).toBeLessThanOrEqual(30);
      expect(JSON.stringify(line)).not.toMatch(/"stack"/);
    }
  });
});
