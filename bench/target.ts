/**
 * One process under test, forked by the harness (bench/run.ts) and driven over IPC:
 *   BENCH_MODE=api         the real service (startApi), configured by the environment like `npm start`;
 *   BENCH_MODE=api-noauth  the same app with authentication switched off (every request acts as the admin);
 *   BENCH_MODE=bare        bare fastify, same logger: GET /page (a fixed JSON page), POST /insert (one INSERT in a transaction);
 *   BENCH_MODE=argon       no HTTP: closed loops of raw argon2id verifies, same parameters and thread pool.
 * Every mode measures its event-loop delay and answers {type:'stats'} with it and its RSS.
 */
// First, as in every process entry of the service: libuv's thread pool (the hashing threads) sized to the cores.
import '../src/interfaces/thread-pool';
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { hash, verify } from '@node-rs/argon2';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { loadConfig } from '../src/infrastructure/config/config';
import { buildContainer } from '../src/infrastructure/container';
import { ARGON2_OPTIONS } from '../src/infrastructure/crypto/argon2-password-hasher';
import { createLogger } from '../src/infrastructure/logging/logger';
import { createDataSource } from '../src/infrastructure/persistence/typeorm/data-source';
import { buildHttpApp } from '../src/interfaces/http/app';
import { startApi } from '../src/interfaces/http/server';
import { prepareDatabase } from '../src/interfaces/process-runtime';

type Message = { type: 'stats'; id: number; reset?: boolean } | { type: 'argon'; id: number; concurrency: number; ms: number } | { type: 'stop' };

const eld = monitorEventLoopDelay({ resolution: 5 });
eld.enable();

function send(message: unknown): void {
  process.send?.(message);
}

function peakRssBytes(): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    if (match) return Number(match[1]) * 1024;
  } catch {
    /* not Linux */
  }
  return process.memoryUsage().rss;
}

/** Starts the kernel's high-water mark over from the current RSS (Linux 4.0+: clear_refs 5); elsewhere a no-op. */
function resetPeakRss(): void {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
  } catch {
    /* not Linux, or not allowed: the peak then counts from the process's start */
  }
}

async function argonLoop(concurrency: number, ms: number): Promise<{ ops: number; seconds: number }> {
  const stored = await hash('bench-password-123', ARGON2_OPTIONS);
  const started = performance.now();
  const end = started + ms;
  let ops = 0;
  const worker = async () => {
    while (performance.now() < end) {
      await verify(stored, 'bench-password-123');
      ops++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { ops, seconds: (performance.now() - started) / 1000 };
}

async function start(): Promise<{ url?: string; metricsUrl?: string; close: () => Promise<void> }> {
  const mode = process.env.BENCH_MODE ?? 'api';
  if (mode === 'argon') return { close: async () => undefined };
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  if (mode === 'api') {
    const api = await startApi({ config, logger });
    return { url: api.url, metricsUrl: api.metricsUrl, close: () => api.close() };
  }
  if (mode === 'api-noauth') {
    const container = buildContainer(config, logger);
    const app = await buildHttpApp(container);
    await prepareDatabase(container, { migrate: false });
    const admin = await container.cradle.userRepository.findByUsername(process.env.BENCH_ADMIN_USERNAME ?? 'admin');
    if (!admin) throw new Error('no admin to act as');
    const actor = await container.cradle.authenticateActor.execute({ subject: admin.id, tokenVersion: admin.tokenVersion });
    if (!actor) throw new Error('admin does not resolve to an actor');
    // Authentication switched off: the /v1 hook calls app.authenticate, which now answers the admin at once.
    (app as unknown as { authenticate: () => Promise<typeof actor> }).authenticate = async () => actor;
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as { port: number };
    return { url: `http://127.0.0.1:${port}`, close: async () => { await app.close(); await container.dispose(); } };
  }
  // bare fastify, same logger and body limit as the service
  const page = JSON.parse(process.env.BENCH_FIXED_PAGE ?? '{"users":[],"pagination":{"page":1,"page_size":10,"page_count":0,"total_document":0}}');
  const dataSource = createDataSource(config.database);
  await dataSource.initialize();
  await dataSource.query(
    'CREATE TABLE IF NOT EXISTS bench_rows (id VARCHAR(36) CHARACTER SET ascii PRIMARY KEY, email VARCHAR(254) NOT NULL, created_at DATETIME(3) NOT NULL)',
  );
  const app = Fastify({ loggerInstance: logger as FastifyBaseLogger, bodyLimit: config.bodyLimitBytes });
  app.get('/page', async () => page);
  app.post('/insert', async (_request, reply) => {
    await dataSource.transaction((manager) =>
      manager.query('INSERT INTO bench_rows (id, email, created_at) VALUES (?, ?, ?)', [randomUUID(), `${randomUUID()}@bench.test`, new Date()]),
    );
    return reply.code(201).send();
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, close: async () => { await app.close(); await dataSource.destroy(); } };
}

async function main(): Promise<void> {
  const target = await start();
  process.on('message', (message: Message) => {
    if (message.type === 'stop') {
      void target.close().finally(() => process.exit(0));
      return;
    }
    if (message.type === 'stats') {
      const stats = {
        eldP50Ms: eld.percentile(50) / 1e6,
        eldP99Ms: eld.percentile(99) / 1e6,
        eldMaxMs: eld.max / 1e6,
        rssBytes: process.memoryUsage().rss,
        peakRssBytes: peakRssBytes(),
      };
      if (message.reset) {
        eld.reset();
        resetPeakRss();
      }
      send({ type: 'stats', id: message.id, stats });
      return;
    }
    if (message.type === 'argon') {
      void argonLoop(message.concurrency, message.ms).then((result) => send({ type: 'argon', id: message.id, result }));
    }
  });
  send({ type: 'ready', url: target.url, metricsUrl: target.metricsUrl, pid: process.pid });
}

main().catch((error: unknown) => {
  send({ type: 'failed', reason: error instanceof Error ? error.stack ?? error.message : String(error) });
  process.exit(1);
});
