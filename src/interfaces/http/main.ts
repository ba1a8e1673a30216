// First: dependencies installed for another node stop the start here, before an addon crashes it.
import '../installed-node-guard';
import '../thread-pool';
import { loadConfig } from '../../infrastructure/config/config';
import { createLogger } from '../../infrastructure/logging/logger';
import { routeProcessWarnings } from '../../infrastructure/logging/process-warnings';
import { exitOnStartupError } from '../process-runtime';
import { startApi } from './server';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    exitOnStartupError(error);
  }
  const logger = createLogger(config.logLevel);
  routeProcessWarnings(logger);
  const api = await startApi({ config, logger }).catch((error) => exitOnStartupError(error, logger));

  const GRACE_MS = 30_000;
  const stop = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    setTimeout(() => {
      logger.error('graceful shutdown took too long; exiting');
      process.exit(1);
    }, GRACE_MS).unref();
    api.close().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (error) => {
        logger.error({ err: error }, 'error while shutting down');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

void main();
