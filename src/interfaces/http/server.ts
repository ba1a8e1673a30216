import type { FastifyInstance } from 'fastify';
import { type Config, loadConfig } from '../../infrastructure/config/config';
import { type AppContainer, buildContainer, type Overrides } from '../../infrastructure/container';
import { createLogger, type Logger } from '../../infrastructure/logging/logger';
import { prepareDatabase, sleep } from '../process-runtime';
import { buildHttpApp } from './app';

export interface RunningApi {
  app: FastifyInstance;
  container: AppContainer;
  url: string;
  /** Graceful stop: not ready at once, drain, finish in-flight requests, close everything. */
  close(): Promise<void>;
}

export interface StartOptions {
  config?: Config;
  logger?: Logger;
  overrides?: Overrides;
}

export async function startApi(options: StartOptions = {}): Promise<RunningApi> {
  const config = options.config ?? loadConfig();
  const logger = options.logger ?? createLogger(config.logLevel);
  const container = buildContainer(config, logger, options.overrides);
  const app = await buildHttpApp(container);
  await prepareDatabase(container, { migrate: config.migrateOnStart });
  await app.listen({ port: config.port, host: config.host });

  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host}:${port}`;
  logger.info({ url, docs: `${url}/docs` }, `access-control ready at ${url} (API docs: ${url}/docs)`);

  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= (async () => {
      container.cradle.readiness.startDraining();
      if (config.shutdownDrainSeconds > 0) await sleep(config.shutdownDrainSeconds * 1000);
      await app.close();
      await container.dispose();
    })();
    return closing;
  };
  return { app, container, url, close };
}
