// First: dependencies installed for another node stop the start here, before an addon crashes it.
import '../installed-node-guard';
import '../thread-pool';
/**
 * The mailer process (`npm run start:mailer`): consumes the invitation events from Kafka and
 * sends the mails. Needs KAFKA_BROKERS and a migrated database (it never migrates: that is the
 * migrate job's or the API's), and SMTP_URL in production (without it mails become .eml files).
 *
 * Kafka not being there (no broker yet, no topic yet, a broker gone away) never ends it: it waits,
 * says so once per change, answers 503 on /readyz meanwhile and consumes as soon as it can.
 *
 * SIGTERM/SIGINT: the message in hand is finished and committed, the group left, connections
 * closed, exit 0 (exit 1 when that takes longer than 30 s).
 */
import { type Config, ConfigError, loadConfig } from '../../infrastructure/config/config';
import { buildMailerContainer } from '../../infrastructure/mailer-container';
import { createLogger } from '../../infrastructure/logging/logger';
import { routeProcessWarnings } from '../../infrastructure/logging/process-warnings';
import { MailerMetrics } from '../../infrastructure/observability/mailer-metrics';
import { type MetricsServer, startMetricsServer } from '../../infrastructure/observability/metrics-server';
import { KafkaMailWorker } from '../../infrastructure/messaging/consumer/kafka-mail-worker';
import { hasPendingMigrations } from '../../infrastructure/persistence/typeorm/migrate';
import { Readiness } from '../../infrastructure/system/readiness';
import { describeError } from '../../infrastructure/logging/logger';
import { connectDatabase, exitOnStartupError } from '../process-runtime';
import { loadMailerSettings, type MailerSettings } from './mailer-settings';
import { listening } from '../../infrastructure/config/listen-problems';

const GRACE_MS = 30_000;

async function main(): Promise<void> {
  let config: Config;
  let settings: MailerSettings;
  let kafka: NonNullable<Config['kafka']>;
  try {
    config = loadConfig();
    if (!config.kafka) {
      throw new ConfigError([
        'KAFKA_BROKERS is not set: the mailer process consumes events from Kafka (on the embedded default the API process sends the mails itself)',
      ]);
    }
    kafka = config.kafka;
    settings = loadMailerSettings(kafka.topic);
  } catch (error) {
    exitOnStartupError(error);
  }

  const logger = createLogger(config.logLevel).child({ process: 'mailer' });
  routeProcessWarnings(logger);
  // Its own root: no HTTP, no admin bootstrap, no relay (those are the API's business).
  const container = buildMailerContainer(config, logger);
  const abort = new AbortController();
  let worker: KafkaMailWorker | null = null;
  let metricsServer: MetricsServer | null = null;
  const metrics = new MailerMetrics();
  let shuttingDown = false;

  const shutdown = (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    logger.info({ signal }, 'shutting down');
    abort.abort();
    setTimeout(() => {
      logger.error('graceful shutdown took too long; exiting');
      process.exit(1);
    }, GRACE_MS).unref();
    (async () => {
      await worker?.stop();
      await metricsServer?.close();
      await container.dispose();
    })().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ reason: describeError(error) }, 'error while shutting down');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));

  try {
    const startedAt = new Date().toISOString();
    const database = new Readiness(container.cradle.dataSource);
    metricsServer = await listening('MAILER_METRICS_PORT', settings.metricsPort, config.host, () => startMetricsServer(metrics.registry, settings.metricsPort, config.host, {
      readiness: async () => {
        if (shuttingDown) return { ready: false, state: 'stopping' };
        const consumer = worker?.status() ?? { ready: false, state: 'starting', since: startedAt };
        if (!worker) return consumer;
        // Consuming, it still needs the database for every mail (its invitation, its record of mails sent): while the
        // database does not answer, no mail goes and the pod says so.
        const up = await database.databaseAnswers();
        return { ...consumer, ready: consumer.ready && up, database: up ? 'up' : 'down' };
      },
    }));
    logger.info({ metrics: `http://${config.host}:${metricsServer.port}/metrics` }, 'mailer starting: /healthz, /readyz and /metrics served');
    await connectDatabase(container.cradle, abort.signal);
    if (shuttingDown) return;
    if (await hasPendingMigrations(container.cradle.dataSource)) {
      logger.warn('the database has pending migrations: run `npm run migrate`; mail events are retried meanwhile');
    }
    const { issueInvitation, issuePasswordReset, mailer } = container.cradle;
    // Not fatal: mails are retried until SMTP answers; this only says so early.
    mailer.verify?.().catch((error: unknown) => logger.warn({ reason: describeError(error) }, 'the SMTP server does not accept us yet'));
    worker = new KafkaMailWorker({
      issueInvitation,
      issuePasswordReset,
      logger,
      kafka,
      groupId: settings.groupId,
      deadLetterTopic: settings.deadLetterTopic,
      retry: { maxDelayMs: settings.retryMaxDelayMs },
      partitionsConsumedConcurrently: settings.partitionsConsumedConcurrently,
      mailsInFlightPerPartition: settings.mailsInFlightPerPartition,
      metrics,
    });
    await worker.start();
    if (shuttingDown) return;
    logger.info(
      {
        topic: kafka.topic,
        groupId: worker.groupId,
        deadLetterTopic: worker.deadLetterTopic,
        smtp: config.smtpUrl ? 'SMTP_URL' : 'files',
        metrics: `http://${config.host}:${metricsServer.port}/metrics`,
      },
      'mailer ready',
    );
  } catch (error) {
    if (shuttingDown) return; // the shutdown path exits
    exitOnStartupError(error, logger);
  }
}

void main();
