import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A reverse proxy that serves the service under a path, as an ingress does: `/auth/…` goes to the service without
 * `/auth`, anything else is not found. `publicUrl` is what the service's PUBLIC_URL names; `target` is set once the
 * service listens.
 */
export class PathStrippingProxy {
  target = '';

  private constructor(
    private readonly server: http.Server,
    readonly publicUrl: string,
  ) {}

  static async start(prefix = '/auth'): Promise<PathStrippingProxy> {
    // eslint-disable-next-line prefer-const
    let self: PathStrippingProxy | undefined;
    const server = http.createServer((incoming, answer) => {
      if (!self || !incoming.url!.startsWith(`${prefix}/`)) return void answer.writeHead(404).end();
      const onward = http.request(`${self.target}${incoming.url!.slice(prefix.length)}`, { method: incoming.method, headers: incoming.headers }, (reply) => {
        answer.writeHead(reply.statusCode!, reply.headers);
        reply.pipe(answer);
      });
      incoming.pipe(onward);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    self = new PathStrippingProxy(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}${prefix}`);
    return self;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
