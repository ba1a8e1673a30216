/**
 * A rolling restart as Kubernetes does it: two built api processes (node dist/…) on one MariaDB
 * database and one JWT key pair, behind a round-robin proxy that polls /readyz every 100 ms and
 * drops a backend answering 503 (an endpoints controller). Under steady load one instance gets
 * SIGTERM with SHUTDOWN_DRAIN=1s: no client request fails, it exits 0, and every invitation that
 * answered 201 is in the database with its event published.
 *
 * The mailer's side (stopped mid-burst: no mail lost, none doubled) is covered by
 * test/integration/mailer/kafka-mail-worker.test.ts ("stopped mid-burst and started again").
 */
import { generateKeyPairSync } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createConnection } from 'mysql2/promise';
import { type ApiProcess, ensureBuilt, startApiProcess } from '../support/api-process';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

jest.setTimeout(120_000);

const ADMIN = { username: 'restart.admin', password: 'restart-admin-password', email: 'restart.admin@example.com' };
const LOAD_MS = 10_000;
const SIGTERM_AT_MS = 3_000;
const CLIENTS = 4;

/** Round robin over ready backends; a backend leaves the rotation as soon as its /readyz says 503. No retries. */
class ReadinessProxy {
  readonly ready = new Set<number>();
  readonly served = new Map<number, number>();
  /** What each backend's /readyz said, when it changed (shown when the test fails). */
  readonly transitions: string[] = [];
  private readonly lastVerdict = new Map<number, string>();
  private readonly started = Date.now();
  private next = 0;
  private poller: NodeJS.Timeout | undefined;
  private server: http.Server | undefined;
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

  constructor(private readonly backends: number[]) {
    for (const port of backends) this.ready.add(port);
  }

  async start(): Promise<string> {
    this.poller = setInterval(() => void this.poll(), 100);
    this.server = http.createServer((req, res) => this.forward(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', () => resolve()));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    clearInterval(this.poller);
    this.agent.destroy();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  /** Like an endpoints controller: in on 200, out on 503 or a refused connection; a slow answer changes nothing. */
  private async poll(): Promise<void> {
    await Promise.all(
      this.backends.map(async (port) => {
        let verdict: string;
        try {
          const response = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2_000) });
          await response.arrayBuffer();
          verdict = String(response.status);
          if (response.status === 200) this.ready.add(port);
          else if (response.status === 503) this.ready.delete(port);
        } catch (error) {
          const code = (error as { cause?: { code?: string } }).cause?.code;
          verdict = code ?? (error as Error).name;
          if (code === 'ECONNREFUSED') this.ready.delete(port);
        }
        if (this.lastVerdict.get(port) !== verdict) this.transitions.push(`${Date.now() - this.started} ms: ${port} ${verdict}`);
        this.lastVerdict.set(port, verdict);
      }),
    );
  }

  private forward(req: http.IncomingMessage, res: http.ServerResponse): void {
    const ready = [...this.ready];
    if (ready.length === 0) {
      res.writeHead(503).end('no ready backend');
      return;
    }
    const port = ready[this.next++ % ready.length];
    this.served.set(port, (this.served.get(port) ?? 0) + 1);
    const upstream = http.request(
      { host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers, agent: this.agent },
      (response) => {
        res.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(res);
      },
    );
    upstream.on('error', (error) => {
      if (!res.headersSent) res.writeHead(502).end(`upstream ${port}: ${error.message}`);
      else res.destroy();
    });
    req.pipe(upstream);
  }
}

describe('graceful restart of one of two api replicas under load', () => {
  let db: TestDatabase;
  const instances: ApiProcess[] = [];
  let proxy: ReadinessProxy;
  let baseUrl: string;

  beforeAll(async () => {
    ensureBuilt();
    db = await createTestDatabase('ac_restart');
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const env = {
      DATABASE_URL: db.url,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      JWT_PRIVATE_KEY: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      JWT_PUBLIC_KEY: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      PUBLIC_URL: 'http://access-control.test',
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_PASSWORD: ADMIN.password,
      ADMIN_EMAIL: ADMIN.email,
      SHUTDOWN_DRAIN: '1s',
      // Both relays run: they share the outbox through SELECT … FOR UPDATE SKIP LOCKED.
      RELAY_ENABLED: 'true',
      // One admin sends every invitation here: the per-inviter limit is not what this test is about.
      INVITE_RATE_LIMIT: '0',
    };
    // One after the other: the first migrates and bootstraps the admin, the second finds both done.
    instances.push(await startApiProcess('restart-a', env));
    instances.push(await startApiProcess('restart-b', env));
    proxy = new ReadinessProxy(instances.map((i) => i.port));
    baseUrl = await proxy.start();
  });

  afterAll(async () => {
    await proxy?.stop();
    for (const instance of instances) {
      if (instance.child.exitCode === null) {
        instance.child.kill('SIGTERM');
        await instance.exited;
      }
    }
    await db?.drop();
  });

  it('serves every request while one instance drains and exits 0; every 201 invitation is stored and its event published', async () => {
    const signIn = await fetch(`${baseUrl}/v1/auth/signin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: ADMIN.username, password: ADMIN.password }),
    });
    expect(signIn.status).toBe(200);
    const { accessToken } = (await signIn.json()) as { accessToken: string };
    const auth = { authorization: `Bearer ${accessToken}` };

    const failures: string[] = [];
    const invited: string[] = [];
    let requests = 0;
    const stopAt = Date.now() + LOAD_MS;
    const client = async (n: number) => {
      for (let i = 0; Date.now() < stopAt; i++) {
        const invite = i % 2 === 1;
        const email = `load.${n}.${i}@example.com`;
        requests++;
        try {
          const response = invite
            ? await fetch(`${baseUrl}/v1/users/invite`, {
                method: 'POST',
                headers: { ...auth, 'content-type': 'application/json' },
                body: JSON.stringify({ email }),
              })
            : await fetch(`${baseUrl}/v1/users?page_size=5`, { headers: auth });
          const text = await response.text();
          if (response.status !== (invite ? 201 : 200)) failures.push(`${response.status} ${text.slice(0, 200)}`);
          else if (invite) invited.push(email);
        } catch (error) {
          failures.push(`client error: ${(error as Error).message}`);
        }
      }
    };

    const victim = instances[0];
    const sigterm = (async () => {
      await new Promise((r) => setTimeout(r, SIGTERM_AT_MS));
      const servedBefore = proxy.served.get(victim.port) ?? 0;
      victim.child.kill('SIGTERM');
      return servedBefore;
    })();
    await Promise.all(Array.from({ length: CLIENTS }, (_, n) => client(n)));
    const servedByVictimBeforeSigterm = await sigterm;
    const exitCode = await victim.exited;

    const log = victim.output.join('');
    expect({ failures: failures.slice(0, 20), failed: failures.length, readiness: proxy.transitions }).toEqual({
      failures: [],
      failed: 0,
      readiness: proxy.transitions,
    });
    expect(exitCode).toBe(0);
    expect(log).toContain('"msg":"stopped"');
    // The victim really was in the rotation, took traffic, and was dropped while still serving.
    expect(servedByVictimBeforeSigterm).toBeGreaterThan(10);
    expect(proxy.ready.has(victim.port)).toBe(false);
    // It left the rotation because /readyz said 503 while it still answered, not because it was gone.
    const victimVerdicts = proxy.transitions.filter((t) => t.includes(`: ${victim.port} `)).map((t) => t.split(' ').pop());
    expect(victimVerdicts.slice(0, 2)).toEqual(['200', '503']);
    expect(proxy.ready.has(instances[1].port)).toBe(true);
    expect(requests).toBeGreaterThan(50);
    expect(invited.length).toBeGreaterThan(10);

    const connection = await createConnection({ uri: db.url });
    try {
      const [rows] = await connection.query('SELECT email FROM users WHERE email LIKE ?', ['load.%']);
      const stored = new Set((rows as { email: string }[]).map((r) => r.email));
      expect(invited.filter((email) => !stored.has(email))).toEqual([]);
      // Every event reaches the bus: what the victim left behind, the survivor's relay publishes.
      const deadline = Date.now() + 10_000;
      let pending = -1;
      while (Date.now() < deadline) {
        const [count] = await connection.query('SELECT COUNT(*) AS n FROM outbox_events WHERE published_at IS NULL');
        pending = Number((count as { n: number }[])[0].n);
        if (pending === 0) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(pending).toBe(0);
    } finally {
      await connection.end();
    }
  });
});
