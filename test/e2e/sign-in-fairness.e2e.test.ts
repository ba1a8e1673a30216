import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { type ApiProcess, ensureBuilt, startApiProcess } from '../support/api-process';

const ATTACKERS = 4;
const EACH = 60;

/**
 * A password's check (argon2id) is the scarce work: a burst of wrong sign-ins from a few addresses, each within its
 * per-address budget, once queued every check in arrival order, and someone else's sign-in waited behind all of them
 * (13 s in review P). The checks now take turns per client address (FairAdmission): the other address's sign-in
 * waits a turn per address waiting, not the whole burst. The addresses come through X-Forwarded-For from a trusted
 * proxy (TRUSTED_PROXIES=loopback), as behind an ingress. The built api runs in a process of its own (on SQLite, whose
 * statements run on its event loop), and each request has a connection of its own (node:http, no socket limit), so
 * the burst is at the server, in line, when the other sign-in is sent.
 */
const ADMIN = { username: 'fair-admin', password: 'fair-admin-password-1' };

describe('password checks take turns per client address', () => {
  let api: ApiProcess;

  beforeAll(async () => {
    ensureBuilt();
    api = await startApiProcess('fairness', {
      TRUSTED_PROXIES: 'loopback',
      ADDRESS_RATE_LIMIT: '0',
      LOG_LEVEL: 'info',
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_PASSWORD: ADMIN.password,
      ADMIN_EMAIL: 'fair-admin@example.com',
    });
  }, 60_000);
  afterAll(async () => {
    api?.child.kill('SIGTERM');
    await api?.exited;
  });

  it(`a sign-in from another address is answered long before a burst of ${ATTACKERS * EACH} wrong ones from ${ATTACKERS} addresses`, async () => {
    const order: string[] = [];
    const signIn = (address: string, username: string, password: string, label: string) =>
      new Promise<number>((resolve, reject) => {
        const body = JSON.stringify({ username, password });
        const request = http.request(
          `http://127.0.0.1:${api.port}/v1/auth/signin`,
          {
            method: 'POST',
            agent: false,
            headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-forwarded-for': address },
          },
          (response) => {
            response.resume();
            response.on('end', () => {
              order.push(label);
              resolve(response.statusCode ?? 0);
            });
          },
        );
        request.on('error', reject);
        request.end(body);
      });
    const burst = Array.from({ length: ATTACKERS * EACH }, (_, i) =>
      signIn(`198.51.100.${1 + (i % ATTACKERS)}`, `guess-${randomUUID().slice(0, 8)}`, 'not the password', 'burst'),
    );
    // Every request of the burst is at the server, in line, well before this one.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const answeredBefore = order.length;
    const own = signIn('203.0.113.7', ADMIN.username, ADMIN.password, 'own');
    const statuses = await Promise.all(burst);
    expect(await own).toBe(200);
    // Wrong passwords: 401; a check that found no turn within 5 s on a slow machine: 503 (Retry-After), never run.
    expect(statuses.filter((status) => status !== 401 && status !== 503)).toEqual([]);
    // In arrival order it waits for every check in line before it (about 200 here); taking turns, for the checks
    // running (four per hashing thread) and a turn per attacker's line.
    console.log(`sign-in fairness: answered ${order.indexOf('own') - answeredBefore} after the burst's ${answeredBefore} before it`);
    expect(order.indexOf('own') - answeredBefore).toBeLessThan(60);
  });
});
