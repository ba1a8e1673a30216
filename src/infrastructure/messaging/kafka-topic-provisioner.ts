import { type Admin, ConfigResourceTypes, type LogEntry, logLevel } from 'kafkajs';
import { Kafka } from './kafka-client';
import type { Logger } from '../logging/logger';
import { backoffDelay, sleepUnlessAborted } from '../system/backoff';
import { type KafkaConditionKind, kafkaConditionOf } from './kafka-conditions';

export interface TopicSpec {
  topic: string;
  partitions: number;
  /** -1: the broker's `default.replication.factor`. */
  replicationFactor: number;
  /** `retention.ms` to create it with (-1: kept for good); unset: the broker's `log.retention.*`. */
  retentionMs?: number;
}

export interface TopicsOutcome {
  created: string[];
  /** There already, left exactly as they were (whatever their partition count). */
  existing: string[];
}

export interface KafkaTopicProvisionerOptions {
  brokers: readonly string[];
  clientId: string;
  logger: Logger;
  /** TCP connect timeout of one attempt. Default 3 000 ms. */
  connectionTimeoutMs?: number;
  /** Waits between attempts of `ensureUntilDone`: from `initialMs` (500) doubling up to `maxMs` (15 000). */
  backoff?: { initialMs?: number; maxMs?: number };
}

/**
 * Creates the Kafka topics the service owns, explicitly, with the configured partitions and
 * replication factor, so that neither depends on a broker's auto-creation (which may be off, and
 * when on, picks its own partition count at the first client that asks). Run by `npm run migrate`
 * and by the API when MIGRATE_ON_START=true; the mailer and the relay never create the events topic.
 *
 * A topic that exists is left as it is: changing a topic's partitions moves keys between partitions
 * (one user's events would lose their order), which is an operator's decision, not a deployment's; a
 * partition count or a retention other than configured is logged as a warning.
 */
export class KafkaTopicProvisioner {
  private readonly kafka: Kafka;
  private readonly logger: Logger;
  private readonly initialMs: number;
  private readonly maxMs: number;

  constructor(options: KafkaTopicProvisionerOptions) {
    if (options.brokers.length === 0) throw new Error('KafkaTopicProvisioner needs at least one broker');
    this.logger = options.logger.child({ component: 'kafka-topics' });
    this.initialMs = options.backoff?.initialMs ?? 500;
    this.maxMs = Math.max(this.initialMs, options.backoff?.maxMs ?? 15_000);
    this.kafka = new Kafka({
      clientId: options.clientId,
      brokers: [...options.brokers],
      connectionTimeout: options.connectionTimeoutMs ?? 3_000,
      // Short: an attempt fails fast and `ensureUntilDone` owns the long wait and says so once.
      retry: { initialRetryTime: 300, maxRetryTime: 2_000, retries: 2 },
      logLevel: this.logger.isLevelEnabled('debug') ? logLevel.INFO : logLevel.NOTHING,
      logCreator: () => (entry: LogEntry) => this.logger.debug({ namespace: entry.namespace }, entry.log.message),
    });
  }

  /** One attempt: creates what is missing, reports what was there. Rejects when Kafka cannot be reached or refuses. */
  async ensure(topics: readonly TopicSpec[]): Promise<TopicsOutcome> {
    for (const spec of topics) validate(spec);
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const present = new Set(await admin.listTopics());
      const missing = topics.filter((spec) => !present.has(spec.topic));
      let created: string[] = [];
      if (missing.length > 0) {
        const createdAny = await admin.createTopics({
          topics: missing.map((spec) => ({
            topic: spec.topic,
            numPartitions: spec.partitions,
            replicationFactor: spec.replicationFactor,
            ...(spec.retentionMs !== undefined ? { configEntries: [{ name: 'retention.ms', value: String(spec.retentionMs) }] } : {}),
          })),
          waitForLeaders: true,
        });
        // false: another process (a second replica, a parallel job) created every one of them first.
        created = createdAny ? missing.map((spec) => spec.topic) : [];
      }
      const existing = topics.filter((spec) => !created.includes(spec.topic));
      if (existing.length > 0) {
        const { topics: metadata } = await admin.fetchTopicMetadata({ topics: existing.map((spec) => spec.topic) });
        for (const spec of existing) {
          const partitions = metadata.find((m) => m.name === spec.topic)?.partitions.length;
          if (partitions !== undefined && partitions !== spec.partitions) {
            this.logger.warn(
              { topic: spec.topic, partitions, configured: spec.partitions },
              'Kafka topic exists with another partition count than configured; left as it is',
            );
          }
        }
        await warnOfOtherRetention(admin, existing, this.logger);
      }
      for (const spec of topics.filter((s) => created.includes(s.topic))) {
        this.logger.info(
          { topic: spec.topic, partitions: spec.partitions, replicationFactor: spec.replicationFactor, ...(spec.retentionMs !== undefined ? { retentionMs: spec.retentionMs } : {}) },
          'Kafka topic created',
        );
      }
      return { created, existing: existing.map((spec) => spec.topic) };
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  }

  /**
   * `ensure`, again and again with backoff while the cluster is not there yet (not up, no leader,
   * no controller), saying so once per condition rather than once per attempt. Rejects at once on
   * what waiting cannot fix (not authorized, a replication factor above the broker count). Resolves
   * to null when `signal` aborts first.
   */
  async ensureUntilDone(
    topics: readonly TopicSpec[],
    options: { signal?: AbortSignal; keepAlive?: boolean } = {},
  ): Promise<TopicsOutcome | null> {
    let waitingFor: KafkaConditionKind | null = null;
    const started = Date.now();
    for (let attempt = 1; ; attempt++) {
      if (options.signal?.aborted) return null;
      try {
        const outcome = await this.ensure(topics);
        if (waitingFor) this.logger.info({ attempts: attempt, waitedMs: Date.now() - started }, 'Kafka answers; topics in place');
        return outcome;
      } catch (error) {
        const condition = kafkaConditionOf(error);
        if (!condition.retriable || options.signal?.aborted) throw error;
        const delay = backoffDelay(attempt, this.initialMs, this.maxMs);
        if (condition.kind !== waitingFor) {
          this.logger.warn({ condition: condition.kind, reason: condition.reason, retryInMs: delay }, 'cannot create the Kafka topics yet; waiting');
          waitingFor = condition.kind;
        } else {
          this.logger.debug({ condition: condition.kind, reason: condition.reason, attempt, retryInMs: delay }, 'Kafka topics: still waiting');
        }
        await sleepUnlessAborted(delay, options.signal, { keepAlive: options.keepAlive ?? true });
      }
    }
  }
}

/**
 * A topic created before (by hand, or before KAFKA_TOPIC_RETENTION or the dead-letter topic's retention) may drop what
 * a consumer reading from the beginning needs, or dead letters not yet handled: said as a warning. Only said: a principal allowed to create and describe topics but not to read their
 * configuration (a separate ACL, DescribeConfigs) still migrates, with a warning that the retention went unchecked.
 */
export async function warnOfOtherRetention(admin: Pick<Admin, 'describeConfigs'>, existing: readonly TopicSpec[], logger: Logger): Promise<void> {
  const specified = existing.filter((spec) => spec.retentionMs !== undefined);
  if (specified.length === 0) return;
  let resources;
  try {
    ({ resources } = await admin.describeConfigs({
      resources: specified.map((spec) => ({ type: ConfigResourceTypes.TOPIC, name: spec.topic, configNames: ['retention.ms'] })),
      includeSynonyms: false,
    }));
  } catch (error) {
    logger.warn({ topics: specified.map((spec) => spec.topic), reason: (error as Error).message }, "cannot read the Kafka topics' retention; left unchecked");
    return;
  }
  for (const spec of specified) {
    const value = resources.find((r) => r.resourceName === spec.topic)?.configEntries.find((e) => e.configName === 'retention.ms')?.configValue;
    if (value !== undefined && Number(value) !== spec.retentionMs) {
      logger.warn(
        { topic: spec.topic, retentionMs: Number(value), configured: spec.retentionMs },
        'Kafka topic exists with another retention than configured; left as it is (the broker deletes what is older than it: events a consumer rebuilding from the beginning needs, dead letters nobody has looked at)',
      );
    }
  }
}

function validate(spec: TopicSpec): void {
  if (spec.retentionMs !== undefined && !(Number.isSafeInteger(spec.retentionMs) && (spec.retentionMs > 0 || spec.retentionMs === -1))) {
    throw new RangeError(`retentionMs of ${spec.topic} must be -1 (kept for good) or a positive integer`);
  }
  if (!Number.isSafeInteger(spec.partitions) || spec.partitions < 1) throw new RangeError(`partitions of ${spec.topic} must be a positive integer`);
  if (!Number.isSafeInteger(spec.replicationFactor) || (spec.replicationFactor < 1 && spec.replicationFactor !== -1)) {
    throw new RangeError(`replicationFactor of ${spec.topic} must be -1 (the broker's default) or a positive integer`);
  }
}
