import { type EachBatchPayload, type KafkaMessage, logLevel } from 'kafkajs';
import { Kafka } from '../kafka-client';
import type { Logger } from '../../logging/logger';
import type { MailerMetricsRecorder } from '../../observability/mailer-metrics';
import { backoffDelay, sleepUnlessAborted } from '../../system/backoff';
import { ConsumerSupervisor, type ConsumerStatus } from './consumer-supervisor';
import { type DeadLetter, DeadLetterPublisher, type MessageOrigin } from './dead-letter-publisher';
import {
  decodeEventJson,
  handleMailEvent,
  type IssueInvitation,
  type IssuePasswordReset,
  MalformedEventError,
  type MailEventOutcome,
  safeErrorText,
  STALE_MAIL_EVENT,
} from './mail-event-handler';
import { kafkaLogCreator, kafkaLogLevel } from './kafka-log';
import { consumeBatchInWindow } from './partition-window';

export const DEFAULT_MAILER_GROUP_ID = 'access-control-mailer';
export const DEFAULT_MAILS_IN_FLIGHT = 8;

export function defaultDeadLetterTopic(topic: string): string {
  return `${topic}.mailer-dlq`;
}

export interface KafkaMailWorkerOptions {
  issueInvitation: IssueInvitation;
  /** PasswordResetRequested (issue #10); without it such an event is a temporary failure. */
  issuePasswordReset?: IssuePasswordReset;
  logger: Logger;
  /**
   * Where the events are: config.kafka. `topicPartitions`/`replicationFactor` only shape the
   * dead-letter topic when the worker has to create it; it never creates the events topic.
   */
  kafka: { brokers: string[]; clientId: string; topic: string; topicPartitions?: number; replicationFactor?: number };
  /** Consumer group; default `access-control-mailer`. */
  groupId?: string;
  /** How long a request to a broker may go unanswered before it is tried again and /readyz says so; default 10 s. */
  requestTimeoutMs?: number;
  /** Dead-letter topic; default `<topic>.mailer-dlq`. Created at start when missing (normally the migrate step's job). */
  deadLetterTopic?: string;
  /** Where a group with no committed offset starts; default true: nothing published before is lost. */
  fromBeginning?: boolean;
  /** Backoff of a temporary failure: doubles from `initialDelayMs` (500) up to `maxDelayMs` (60 000), ±20 % jitter. */
  retry?: { initialDelayMs?: number; maxDelayMs?: number };
  /** Backoff while Kafka is not usable (no broker, no topic, a crashed consumer): `initialMs` (1 000) up to `maxMs` (30 000). */
  reconnect?: { initialMs?: number; maxMs?: number };
  /** Partitions handled at once; default 2. */
  partitionsConsumedConcurrently?: number;
  /**
   * Messages handled at once within a partition (different users' at once, one user's in order);
   * default 8. A new one starts as soon as one ends; offsets are committed up to the end of the
   * unbroken run of handled messages, at most every 100 ms and when the batch ends.
   */
  mailsInFlightPerPartition?: number;
  /** kafkajs group session timeout (default 30 000) and heartbeat interval (default 3 000). */
  sessionTimeoutMs?: number;
  heartbeatIntervalMs?: number;
  /** How long a fetch waits for new messages (default 2 000); a stop waits for the fetch in flight. */
  maxWaitTimeMs?: number;
  /** Mails sent, failed and dead-lettered, and consumer lag (the mailer's /metrics). */
  metrics?: MailerMetricsRecorder;
}

/** kafkajs' own retries of one request; the supervisor's backoff and the per-message retry own the long waits. */
const CLIENT_RETRY = { initialRetryTime: 300, maxRetryTime: 5_000, retries: 5 };

/**
 * The mailer process's consumer: a Kafka consumer group on the events topic that sends the mail
 * each mail event asks for (an invitation for UserInvited / UserInvitationResent, a reset link for
 * PasswordResetRequested; see mail-event-handler.ts). Started by src/interfaces/mailer/main.ts.
 *
 * - Within a partition, the messages of different users are handled at once (up to
 *   `mailsInFlightPerPartition`, see partition-window.ts), one user's in order. Offsets are
 *   committed by hand, only up to the last message of an unbroken run of handled ones (sent, found
 *   a duplicate, ignored or dead-lettered), so a crash never skips a message; a message handled
 *   but not yet committed is delivered again and the use case's idempotency (per event id) sends
 *   nothing the second time. The one duplicate possible is a crash after the mail server accepted
 *   a mail and before the event was recorded as handled: at most one per mail in flight, i.e.
 *   partitionsConsumedConcurrently × mailsInFlightPerPartition.
 * - A temporary failure (a 4xx, SMTP or the database away) is retried in place with a capped
 *   exponential backoff, heartbeating meanwhile, until it succeeds, the worker stops or the
 *   partition is taken away; the offset stays uncommitted, so nothing is lost. The user's later
 *   messages wait meanwhile, which keeps one user's events in order; other users' messages go on
 *   in the remaining slots of the partition's in-flight limit, but no offset is committed past it.
 * - A permanent failure (a 5xx, a refused address) or a malformed message goes to the
 *   dead-letter topic (dead-letter-publisher.ts), is logged, and is committed: the consumer moves on.
 * - Kafka itself not being usable (no broker yet, no topic yet, a coordinator loading, a consumer
 *   kafkajs gave up on) never ends the worker: consumer-supervisor.ts waits it out and starts a new
 *   consumer, and `status()` says meanwhile that it is not consuming.
 */
export class KafkaMailWorker {
  readonly topic: string;
  readonly groupId: string;
  readonly deadLetterTopic: string;
  private readonly logger: Logger;
  private readonly options: KafkaMailWorkerOptions;
  private readonly initialDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly deadLetters: DeadLetterPublisher;
  private readonly supervisor: ConsumerSupervisor;
  private started = false;
  private stopping = false;
  private readonly stopController = new AbortController();
  private stopped: Promise<void> | null = null;

  constructor(options: KafkaMailWorkerOptions) {
    this.options = options;
    this.topic = options.kafka.topic;
    this.groupId = options.groupId ?? DEFAULT_MAILER_GROUP_ID;
    this.deadLetterTopic = options.deadLetterTopic ?? defaultDeadLetterTopic(this.topic);
    if (this.deadLetterTopic === this.topic) throw new Error('the dead-letter topic must differ from the events topic');
    this.initialDelayMs = options.retry?.initialDelayMs ?? 500;
    this.maxDelayMs = Math.max(this.initialDelayMs, options.retry?.maxDelayMs ?? 60_000);
    this.logger = options.logger.child({ component: 'kafka-mail-worker' });
    const client = { clientId: options.kafka.clientId, brokers: options.kafka.brokers };
    const kafka = new Kafka({
      ...client,
      logLevel: kafkaLogLevel(options.logger),
      logCreator: kafkaLogCreator(options.logger),
      retry: CLIENT_RETRY,
      // As the api's publisher: a broker that stops answering shows (/readyz) within about 10 s, not kafkajs' 30.
      requestTimeout: options.requestTimeoutMs ?? 10_000,
    });
    this.deadLetters = new DeadLetterPublisher({
      kafka,
      topic: this.deadLetterTopic,
      groupId: this.groupId,
      logger: this.logger,
      topicSettings: { partitions: options.kafka.topicPartitions, replicationFactor: options.kafka.replicationFactor },
    });
    this.supervisor = new ConsumerSupervisor({
      kafka,
      probe: new Kafka({ ...client, logLevel: logLevel.NOTHING, connectionTimeout: 3_000, retry: { retries: 0 } }),
      topic: this.topic,
      groupId: this.groupId,
      fromBeginning: options.fromBeginning ?? true,
      logger: this.logger,
      consumer: {
        sessionTimeoutMs: options.sessionTimeoutMs ?? 30_000,
        heartbeatIntervalMs: options.heartbeatIntervalMs ?? 3_000,
        maxWaitTimeMs: options.maxWaitTimeMs ?? 2_000,
      },
      backoff: options.reconnect,
      prepare: () => this.deadLetters.connect(),
      run: (consumer) =>
        consumer.run({
          autoCommit: false,
          eachBatchAutoResolve: false,
          partitionsConsumedConcurrently: options.partitionsConsumedConcurrently ?? 2,
          eachBatch: (payload) =>
            consumeBatchInWindow(payload, {
              limit: options.mailsInFlightPerPartition ?? DEFAULT_MAILS_IN_FLIGHT,
              handle: (message, batchPayload) => this.handleWithRetry(batchPayload.batch.topic, batchPayload.batch.partition, message, batchPayload),
              canContinue: (batchPayload) => this.canContinue(batchPayload),
              onCommitted: (topic, partition, lag) => options.metrics?.consumerLag(topic, partition, lag),
            }),
        }),
    });
  }

  /**
   * Starts consuming; resolves once the consumer has joined its group (or when `stop()` is called
   * first). Until then, and whenever Kafka is not usable later, it waits and retries by itself:
   * see `status()`.
   */
  async start(): Promise<void> {
    if (this.started) throw new Error('the worker is started already');
    this.started = true;
    await this.supervisor.start();
  }

  /** Consuming or not, and why not: the mailer's readiness. */
  status(): ConsumerStatus {
    return this.supervisor.status();
  }

  /**
   * Stops cleanly: the message in hand is finished (or, if it is waiting for a retry, left
   * uncommitted for the next owner of its partition), its offset committed, the group left and
   * the connections closed. Safe to call more than once.
   */
  stop(): Promise<void> {
    this.stopped ??= (async () => {
      this.stopping = true;
      this.stopController.abort();
      await this.supervisor.stop();
      await this.deadLetters.disconnect().catch((error: unknown) => this.logger.warn({ reason: safeErrorText(error) }, 'producer disconnect failed'));
      this.logger.info({ groupId: this.groupId }, 'invitation mail worker stopped');
    })();
    return this.stopped;
  }

  private canContinue(payload: EachBatchPayload): boolean {
    return !this.stopping && payload.isRunning() && !payload.isStale();
  }

  /** true once the message is handled for good (its offset may be committed); false when it must be left for later. */
  private async handleWithRetry(topic: string, partition: number, message: KafkaMessage, payload: EachBatchPayload): Promise<boolean> {
    const where: MessageOrigin = { topic, partition, offset: message.offset, eventId: peekEventId(message.value) };
    let deadLetter: DeadLetter | null = null;
    for (let attempt = 1; ; attempt++) {
      try {
        if (!deadLetter) {
          const outcome = await this.handle(message);
          if (outcome.action !== 'dead-letter') {
            if (outcome.action === 'handled' && outcome.outcome === 'sent') this.options.metrics?.mailSent();
            this.logOutcome(outcome, where, attempt);
            return true;
          }
          deadLetter = outcome;
        }
        // Only the publishing is retried once a message is known to be dead: no second mail attempt.
        await this.deadLetters.publish(deadLetter, message, where);
        this.options.metrics?.deadLettered(deadLetter.reason);
        return true;
      } catch (error) {
        this.options.metrics?.mailFailed();
        if (!this.canContinue(payload)) {
          this.logger.info({ ...where, reason: safeErrorText(error) }, 'stopping: message left uncommitted for redelivery');
          return false;
        }
        const delay = backoffDelay(attempt, this.initialDelayMs, this.maxDelayMs);
        this.logger.warn(
          { ...where, attempt, retryInMs: delay, reason: safeErrorText(error), stage: deadLetter ? 'dead-letter' : 'handle' },
          'temporary failure; retrying',
        );
        if (!(await this.waitBeforeRetry(delay, payload))) return false;
      }
    }
  }

  private async handle(message: KafkaMessage): Promise<MailEventOutcome> {
    let event: unknown;
    try {
      event = decodeEventJson(message.value);
    } catch (error) {
      if (error instanceof MalformedEventError) return { action: 'dead-letter', reason: 'malformed-event', error: error.message };
      throw error;
    }
    return handleMailEvent(event, this.options.issueInvitation, this.options.issuePasswordReset);
  }

  private logOutcome(outcome: Exclude<MailEventOutcome, DeadLetter>, where: MessageOrigin, attempt: number): void {
    if (outcome.action === 'ignored') {
      if (outcome.stale) this.logger.warn({ ...where, eventId: outcome.eventId, type: outcome.type }, STALE_MAIL_EVENT);
      else this.logger.debug({ ...where, eventId: outcome.eventId, type: outcome.type }, 'event ignored (not a mail event)');
      return;
    }
    this.logger.info(
      { ...where, eventId: outcome.eventId, userId: outcome.userId, type: outcome.type, outcome: outcome.outcome, attempts: attempt },
      outcome.outcome === 'sent' ? 'invitation mail sent' : `invitation mail event handled: ${outcome.outcome}`,
    );
  }

  /** Sleeps `ms`, heartbeating on the way; false when the worker stops or the partition is taken away meanwhile. */
  private async waitBeforeRetry(ms: number, payload: EachBatchPayload): Promise<boolean> {
    const until = Date.now() + ms;
    while (Date.now() < until) {
      await sleepUnlessAborted(Math.min(1_000, until - Date.now()), this.stopController.signal);
      if (!this.canContinue(payload)) return false;
      await payload.heartbeat(); // a rebalance error propagates: kafkajs rejoins, the message stays uncommitted
    }
    return this.canContinue(payload);
  }
}

/** The event id of a message, for log lines only (undefined when the value is not a JSON object with a string id). */
function peekEventId(value: Buffer | null): string | undefined {
  try {
    const id = (JSON.parse(value?.toString('utf8') ?? '') as { id?: unknown } | null)?.id;
    return typeof id === 'string' ? id.slice(0, 64) : undefined;
  } catch {
    return undefined;
  }
}
