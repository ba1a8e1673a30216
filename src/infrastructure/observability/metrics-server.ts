import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/** What `GET /readyz` answers: 200 when `ready`, 503 otherwise, with the whole report as its JSON body. */
export interface ReadinessReport {
  ready: boolean;
  [detail: string]: unknown;
}

export interface MetricsServerOptions {
  /** Serves `GET /readyz` from it; without it there is no such route. */
  readiness?: () => ReadinessReport | Promise<ReadinessReport>;
}

/**
 * The management listener of a process, apart from any public one: `GET /metrics`, `GET /healthz`
 * for a liveness probe (200 while the process runs), and `GET /readyz` for a readiness probe when
 * given one. The api serves it on METRICS_PORT, the mailer on MAILER_METRICS_PORT.
 */
export async function startMetricsServer(registry: Registry, port: number, host = '0.0.0.0', options: MetricsServerOptions = {}): Promise<MetricsServer> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method === 'GET' && path === '/healthz') {
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
      return;
    }
    if (request.method === 'GET' && path === '/readyz' && options.readiness) {
      const answer = (report: ReadinessReport) =>
        response
          .writeHead(report.ready ? 200 : 503, { 'content-type': 'application/json', 'cache-control': 'no-store' })
          .end(JSON.stringify({ status: report.ready ? 'ready' : 'not ready', ...report }));
      Promise.resolve()
        .then(() => options.readiness!())
        .then(answer, () => answer({ ready: false, state: 'unknown' }));
      return;
    }
    if (request.method !== 'GET' || path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    registry.metrics().then(
      (body) => response.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' }).end(body),
      () => response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
