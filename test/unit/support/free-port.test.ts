import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { freePort } from '../../support/free-port';

/** Where Linux takes the ports of outgoing connections (the test runs where the suites do). */
const ephemeralStart = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);

describe('freePort', () => {
  it('picks ports below the range of outgoing connections, each one a server can then listen on every address', async () => {
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    for (const port of ports) expect(port).toBeLessThan(ephemeralStart);
    expect(new Set(ports).size).toBeGreaterThan(1);
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(ports[0], '0.0.0.0', () => resolve());
    });
    await new Promise((resolve) => server.close(resolve));
  });
});
