import { connect, createServer, type Server, type Socket } from 'node:net';
import type { TestDatabase } from './test-database';

const COMMIT = Buffer.from('COMMIT', 'latin1');

/**
 * Whether `chunk` is the COM_QUERY packet of the statement TypeORM commits with: its command byte, then (MySQL 8 with
 * query attributes) the attributes' counts, then `COMMIT`.
 */
function isCommit(chunk: Buffer): boolean {
  return chunk.length <= 16 && chunk[4] === 0x03 && chunk.subarray(-COMMIT.length).equals(COMMIT);
}

/** `from`'s bytes to `to`, each chunk through `filter` (null: dropped), with backpressure as `pipe` has it. */
function forward(from: Socket, to: Socket, filter: (chunk: Buffer) => Buffer | null): void {
  from.on('data', (chunk: Buffer) => {
    const out = filter(chunk);
    if (out && !to.write(out)) {
      from.pause();
      to.once('drain', () => from.resume());
    }
  });
  from.on('end', () => to.end());
}

/**
 * A TCP proxy between the service and its database that a test can cut (live sockets destroyed,
 * new connections refused) and restore. (test/e2e/security/faults.e2e.test.ts has its own copy.)
 */
export class CuttableProxy {
  private readonly sockets = new Set<Socket>();
  /** Each connection's: whether it went silent (`blackhole`). */
  private readonly connections = new Set<{ silent: boolean }>();
  private refusing = false;
  private silencing = false;
  private atNextCommit: { forward: boolean; refuseMs: number; after?: string } | undefined;
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
      const state = { silent: self.silencing };
      self.connections.add(state);
      client.on('close', () => self?.connections.delete(state));
      let answersLost = false;
      /** While armed: the statements of this connection's transaction so far (from its START TRANSACTION), as text. */
      let transaction = '';
      forward(client, upstream, (chunk) => {
        if (state.silent) return null;
        const armed = self?.atNextCommit;
        if (!armed) return chunk;
        const text = chunk.toString('latin1');
        transaction = text.includes('START TRANSACTION') ? text : (transaction + text).slice(-65_536);
        if (!isCommit(chunk) || !transaction.includes(armed.after ?? '')) return chunk;
        self!.atNextCommit = undefined;
        if (armed.forward) {
          // The server gets the commit and does it; its answer never reaches the service.
          answersLost = true;
          setTimeout(() => self?.cutFor(armed.refuseMs), 100);
          return chunk;
        }
        // The commit never reaches the server: it rolls the transaction back once the connection goes.
        self!.cutFor(armed.refuseMs);
        return null;
      });
      forward(upstream, client, (chunk) => (answersLost || state.silent ? null : chunk));
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

  /**
   * The next COMMIT a connection sends through the proxy goes astray: forwarded to the server while its answer is lost
   * (`forward`), or never forwarded; then every connection is cut and new ones refused for `refuseMs`. What a
   * transaction meets when the network fails between its commit and the commit's acknowledgement, or just before it.
   * `after`: only the commit of a transaction that sent this text (a table's name), not another one's.
   */
  loseNextCommit(options: { forward: boolean; refuseMs: number; after?: string }): void {
    this.atNextCommit = options;
  }

  private cutFor(ms: number): void {
    this.cut();
    setTimeout(() => this.restore(), ms);
  }

  cut(): void {
    this.refusing = true;
    for (const s of this.sockets) s.destroy();
  }

  /**
   * Every connection, open or opened from now on, stays open and goes silent: nothing is forwarded either way, no
   * reset, no close (a failover, a network path that drops packets). `restore` forwards again on connections opened
   * after it; the silent ones stay silent, as a dead peer's would.
   */
  blackhole(): void {
    this.silencing = true;
    for (const connection of this.connections) connection.silent = true;
  }

  restore(): void {
    this.refusing = false;
    this.silencing = false;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
