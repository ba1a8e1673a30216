import { describeError, type Logger } from '../infrastructure/logging/logger';
import type { AppContainer } from '../infrastructure/container';
import { runMigrations } from '../infrastructure/persistence/typeorm/migrate';
import { ConfigError } from '../infrastructure/config/config';

/**
 * Connects to the database, retrying with backoff while it is away (a process started before
 * its database recovers by itself), then migrates and bootstraps the admin when configured.
 */
export async function prepareDatabase(
  container: AppContainer,
  options: { migrate: boolean; signal?: AbortSignal } = { migrate: true },
): Promise<void> {
  const { dataSource, logger, config } = container.cradle;
  for (let attempt = 1; !dataSource.isInitialized; attempt++) {
    try {
      await dataSource.initialize();
    } catch (error) {
      if (options.signal?.aborted) throw error;
      const wait = Math.min(10_000, 250 * 2 ** Math.min(attempt, 6));
      logger.warn({ attempt, retryInMs: wait, reason: describeError(error) }, 'database not reachable yet');
      await sleep(wait);
    }
  }
  if (options.migrate) {
    const applied = await runMigrations(dataSource);
    if (applied.length > 0) logger.info({ migrations: applied }, 'migrations applied');
  }
  if (config.admin) {
    const outcome = await container.cradle.createAdmin.execute(config.admin);
    logger.info(
      { username: config.admin.username },
      outcome.created ? 'bootstrap admin created' : 'bootstrap admin exists already; left unchanged',
    );
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** Prints a configuration error and exits: a bad value stops the process with a message naming it. */
export function exitOnStartupError(error: unknown, logger?: Logger): never {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
  } else if (logger) {
    logger.fatal({ err: error }, 'startup failed');
  } else {
    process.stderr.write(`startup failed: ${describeError(error)}\n`);
  }
  process.exit(1);
}
