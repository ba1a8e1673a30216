import type { DataSource } from 'typeorm';
import { describeError, type Logger } from '../infrastructure/logging/logger';
import type { AppContainer } from '../infrastructure/container';
import { hasPendingMigrations, migrationsUnknownHere, runMigrations } from '../infrastructure/persistence/typeorm/migrate';
import { assertSupportedServer } from '../infrastructure/persistence/typeorm/server-version';
import { connectionProblem } from '../infrastructure/persistence/typeorm/connection-problem';
import { type Config, ConfigError } from '../infrastructure/config/config';
import { kafkaConditionOf } from '../infrastructure/messaging/kafka-conditions';
import { KafkaTopicProvisioner, type TopicSpec, type TopicsOutcome } from '../infrastructure/messaging/kafka-topic-provisioner';
import { backoffDelay, sleepUnlessAborted } from '../infrastructure/system/backoff';
import { loadDeadLetterTopic } from './mailer/mailer-settings';
import { DEAD_LETTER_RETENTION_MS } from '../infrastructure/messaging/consumer/dead-letter-publisher';

/**
 * Connects to the database, retrying with backoff while it is away (a process started before
 * its database recovers by itself), then migrates and bootstraps the admin when configured.
 * With `migrate` (MIGRATE_ON_START=true) and Kafka configured it also creates the Kafka topics, as
 * `npm run migrate` does (`topics: false` leaves them out).
 */
export async function prepareDatabase(
  container: AppContainer,
  options: { migrate: boolean; topics?: boolean; signal?: AbortSignal } = { migrate: true },
): Promise<void> {
  const { dataSource, logger, config } = container.cradle;
  await connectDatabase({ dataSource, logger, config }, options.signal);
  if (options.migrate) {
    const applied = await runMigrations(dataSource);
    if (applied.length > 0) logger.info({ migrations: applied }, 'migrations applied');
  }
  const newer = await migrationsUnknownHere(dataSource);
  if (newer.length > 0) {
    logger.warn(
      { migrations: newer },
      'this database was migrated by a newer version of the service (the migrations listed are unknown to this one): ' +
        'it runs on, as after a rollback; README, "Rolling back", says what it cannot use while it does',
    );
  }
  if ((options.topics ?? options.migrate) && config.kafka) await createTopicsAtStart(container, config.kafka);
  // Started beside the migrate step (a Job, a compose one-shot that is not awaited): the admin's table
  // may not exist yet. Waiting for it beats exiting: outside Kubernetes nothing would start us again.
  if (config.admin && !options.migrate) await waitForMigrations({ dataSource, logger }, options.signal);
  if (config.admin) {
    const outcome = await container.cradle.bootstrapAdmin.execute(config.admin);
    const username = config.admin.username;
    if (outcome.created) logger.info({ username }, 'bootstrap admin created');
    else if (outcome.reason === 'exists') logger.info({ username }, 'bootstrap admin exists already; left unchanged');
    else if (outcome.reason === 'bootstrapped') {
      logger.info(
        { username, bootstrappedAt: outcome.at.toISOString() },
        'ADMIN_* left unused: this database had its bootstrap admin already (it is created once per database, and not again once erased)',
      );
    } else {
      logger.warn(
        { username },
        'ADMIN_* left unused: this database has users already, and the bootstrap admin is only created into an empty one; ' +
          'add an admin with `npm run cli -- create-admin` instead',
      );
    }
  }
}

/** The topics the service owns and the migrate step creates: the events topic, the audit trail's and the mailer's dead-letter topic. */
export function ownedTopics(kafka: NonNullable<Config['kafka']>, env: Record<string, string | undefined> = process.env): TopicSpec[] {
  const settings = { partitions: kafka.topicPartitions, replicationFactor: kafka.replicationFactor };
  return [
    // Kept for good unless KAFKA_TOPIC_RETENTION says otherwise: a consumer rebuilds the users from the beginning.
    { topic: kafka.topic, ...settings, retentionMs: kafka.topicRetentionMs },
    { topic: kafka.auditTopic, ...settings },
    // Kept for good: a dead letter waits for an operator, however long that takes.
    { topic: loadDeadLetterTopic(kafka.topic, env), ...settings, retentionMs: DEAD_LETTER_RETENTION_MS },
  ];
}

function topicProvisioner(kafka: NonNullable<Config['kafka']>, logger: Logger): KafkaTopicProvisioner {
  return new KafkaTopicProvisioner({ brokers: kafka.brokers, clientId: kafka.clientId, logger });
}

/**
 * `npm run migrate`: creates the topics, waiting for Kafka as for the database (a Job started with
 * its cluster recovers by itself); rejects on what waiting cannot fix (not authorized, a
 * replication factor above the broker count).
 */
export function createTopics(kafka: NonNullable<Config['kafka']>, logger: Logger): Promise<TopicsOutcome | null> {
  return topicProvisioner(kafka, logger).ensureUntilDone(ownedTopics(kafka));
}

/**
 * The API with MIGRATE_ON_START=true: one attempt before it listens, so that a client subscribing
 * right after "ready" finds the topic. Kafka being away is no reason not to start (events wait in
 * the outbox): then the topics are created in the background as soon as Kafka answers.
 */
async function createTopicsAtStart(container: AppContainer, kafka: NonNullable<Config['kafka']>): Promise<void> {
  const { logger, dataSource } = container.cradle;
  const provisioner = topicProvisioner(kafka, logger);
  const topics = ownedTopics(kafka);
  try {
    await provisioner.ensure(topics);
    return;
  } catch (error) {
    const condition = kafkaConditionOf(error);
    if (!condition.retriable) {
      logger.error({ condition: condition.kind, reason: condition.reason }, 'could not create the Kafka topics; events wait in the outbox until they exist');
      return;
    }
  }
  // The loop's first attempt says what it waits for; it says again when the topics are in place.
  // The container has no stop hook for this: its database closing is the process shutting down.
  const stop = new AbortController();
  const watch = setInterval(() => {
    if (!dataSource.isInitialized) stop.abort();
  }, 1_000).unref();
  void provisioner
    .ensureUntilDone(topics, { signal: stop.signal, keepAlive: false })
    .catch((error: unknown) => logger.error({ reason: kafkaConditionOf(error).reason }, 'could not create the Kafka topics; events wait in the outbox until they exist'))
    .finally(() => clearInterval(watch));
}

/** Until the migrate step has applied every migration: says so once, then polls with a capped backoff. */
async function waitForMigrations({ dataSource, logger }: { dataSource: DataSource; logger: Logger }, signal?: AbortSignal): Promise<void> {
  const started = Date.now();
  let attempt = 0;
  while (await hasPendingMigrations(dataSource)) {
    if (signal?.aborted) throw new Error('stopped while waiting for migrations');
    if (++attempt === 1) logger.warn('migrations are pending: waiting for the migrate step (`npm run migrate`) before bootstrapping the admin');
    await sleepUnlessAborted(backoffDelay(attempt, 500, 5_000), signal);
  }
  if (attempt > 0) logger.info({ waitedMs: Date.now() - started }, 'migrations applied by the migrate step; continuing');
}

/**
 * Connects, retrying with backoff while the database is away; gives up only when `signal` aborts.
 * The waits keep the process alive: while the database is away nothing else may (no socket is
 * open yet), and a process whose event loop empties exits with status 0 — a migrate step that
 * "succeeded" without migrating, an api that vanished before it listened.
 * Then a MySQL/MariaDB older than the service supports (or a MariaDB behind mysql://) is refused
 * with a ConfigError naming the version found and the minimum: waiting would not fix it.
 */
export async function connectDatabase(
  { dataSource, logger, config }: { dataSource: DataSource; logger: Logger; config: Pick<Config, 'database'> },
  signal?: AbortSignal,
): Promise<void> {
  for (let attempt = 1; !dataSource.isInitialized; attempt++) {
    try {
      await dataSource.initialize();
    } catch (error) {
      if (signal?.aborted) throw error;
      const wait = backoffDelay(attempt, 500, 10_000);
      const problem = connectionProblem(error, config.database);
      logger.warn({ attempt, retryInMs: wait, reason: describeError(error) }, problem ? `database not reachable yet: ${problem}` : 'database not reachable yet');
      await sleepUnlessAborted(wait, signal);
    }
  }
  await assertSupportedServer(dataSource);
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
