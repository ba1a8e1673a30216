import { connect, createServer, type Server, type Socket } from 'node:net';
import type { TestDatabase } from './test-database';

/**
 * A TCP proxy between the service and its database that a test can cut (live sockets destroyed,
 * new connections refused) and restore. (test/e2e/security/faults.e2e.test.ts has its own copy.)
 */
export class CuttableProxy {
  private readonly sockets = new Set<Socket>();
  private refusing = false;
  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(targetHost: string, targetPort: number): Promise<CuttableProxy> {
    // eslint-disable-next-line prefer-const
    let self: CuttableProxy | undefined;
    const server = createServer((client) => {
      if (!self || self.refusing) return client.destroy();
      const upstream = connect(targetPort, targetHost);
      for (const s of [client, upstream]) {
        self.sockets.add(s);
        s.on('close', () => self?.sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    const port = await new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
    self = new CuttableProxy(server, port);
    return self;
  }

  /** A proxy in front of `database`, and the same database as seen through it (dropping it drops the real one). */
  static async before(database: TestDatabase): Promise<{ proxy: CuttableProxy; database: TestDatabase }> {
    const target = new URL(database.url);
    const proxy = await CuttableProxy.start(target.hostname, Number(target.port || 3306));
    const viaProxy = new URL(database.url);
    // The proxy listens on loopback, wherever the database is (a container's mapped port elsewhere).
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    return {
      proxy,
      database: { url: viaProxy.href, config: { ...database.config, url: viaProxy.href } as TestDatabase['config'], drop: () => database.drop() },
    };
  }

  cut(): void {
    this.refusing = true;
    for (const s of this.sockets) s.destroy();
  }

  restore(): void {
    this.refusing = false;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
