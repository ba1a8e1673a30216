import {
  type Consumer,
  type EachBatchPayload,
  type IHeaders,
  Kafka,
  type KafkaMessage,
  Partitioners,
  type Producer,
} from 'kafkajs';
import type { Logger } from '../../infrastructure/logging/logger';
import type { MailerMetricsRecorder } from '../../infrastructure/observability/mailer-metrics';
import {
  decodeEventJson,
  handleMailEvent,
  type IssueInvitation,
  MalformedEventError,
  type MailEventOutcome,
  safeErrorText,
} from './invitation-mail-handler';
import { kafkaLogCreator, kafkaLogLevel } from './kafka-log';

export const DEFAULT_MAILER_GROUP_ID = 'access-control-mailer';
export const DEFAULT_MAILS_IN_FLIGHT = 8;

export function defaultDeadLetterTopic(topic: string): string {
  return `${topic}.mailer-dlq`;
}

export interface InvitationMailWorkerOptions {
  issueInvitation: IssueInvitation;
  logger: Logger;
  /** Where the events are: config.kafka. */
  kafka: { brokers: string[]; clientId: string; topic: string };
  /** Consumer group; default `access-control-mailer`. */
  groupId?: string;
  /** Dead-letter topic; default `<topic>.mailer-dlq`. Created at start when missing. */
  deadLetterTopic?: string;
  /** Where a group with no committed offset starts; default true: nothing published before is lost. */
  fromBeginning?: boolean;
  /** Backoff of a temporary failure: doubles from `initialDelayMs` (500) up to `maxDelayMs` (60 000), ±20 % jitter. */
  retry?: { initialDelayMs?: number; maxDelayMs?: number };
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

type DeadLetter = Extract<MailEventOutcome, { action: 'dead-letter' }>;

const HEADER_PREFIX = 'x-dlq-';

/**
 * The mailer process: a Kafka consumer group on the events topic that mails an invitation for
 * each UserInvited / UserInvitationResent event.
 *
 * - Within a partition, the messages of different users are handled at once (up to
 *   `mailsInFlightPerPartition`), one user's in order. Offsets are committed by hand, only up to
 *   the last message of an unbroken run of handled ones (sent, found a duplicate, ignored or
 *   dead-lettered), so a crash never skips a message; a message
 *   handled but not yet committed is delivered again and the use case's idempotency (per event
 *   id) sends nothing the second time. The one duplicate possible is a crash after the mail
 *   server accepted a mail and before the event was recorded as handled: at most one per mail
 *   in flight, i.e. partitionsConsumedConcurrently × mailsInFlightPerPartition.
 * - A temporary failure (a 4xx, SMTP or the database away) is retried in place with a capped
 *   exponential backoff, heartbeating meanwhile, until it succeeds, the worker stops or the
 *   partition is taken away; the offset stays uncommitted, so nothing is lost. The user's later
 *   messages wait meanwhile, which keeps one user's events in order; other users' messages go on
 *   in the remaining slots of the partition's in-flight limit, but no offset is committed past it.
 * - A permanent failure (a 5xx, a refused address) or a malformed message goes to the
 *   dead-letter topic with its key, value and headers and `x-dlq-*` headers saying why, is
 *   logged, and is committed: the consumer moves on.
 * - If kafkajs gives up on its consumer (a crash it does not restart), the worker starts a new
 *   one after a capped backoff, for as long as it runs.
 */
export class InvitationMailWorker {
  readonly topic: string;
  readonly groupId: string;
  readonly deadLetterTopic: string;
  private readonly kafka: Kafka;
  private readonly logger: Logger;
  private readonly options: InvitationMailWorkerOptions;
  private readonly initialDelayMs: number;
  private readonly maxDelayMs: number;
  private producer: Producer | null = null;
  private consumer: Consumer | null = null;
  private stopping = false;
  private readonly stopController = new AbortController();
  private restartTimer: NodeJS.Timeout | undefined;
  private restartAttempts = 0;
  private stopped: Promise<void> | null = null;

  constructor(options: InvitationMailWorkerOptions) {
    this.options = options;
    this.topic = options.kafka.topic;
    this.groupId = options.groupId ?? DEFAULT_MAILER_GROUP_ID;
    this.deadLetterTopic = options.deadLetterTopic ?? defaultDeadLetterTopic(this.topic);
    if (this.deadLetterTopic === this.topic) throw new Error('the dead-letter topic must differ from the events topic');
    this.initialDelayMs = options.retry?.initialDelayMs ?? 500;
    this.maxDelayMs = Math.max(this.initialDelayMs, options.retry?.maxDelayMs ?? 60_000);
    this.logger = options.logger.child({ component: 'invitation-mail-worker' });
    this.kafka = new Kafka({
      clientId: options.kafka.clientId,
      brokers: options.kafka.brokers,
      logLevel: kafkaLogLevel(options.logger),
      logCreator: kafkaLogCreator(options.logger),
      retry: { initialRetryTime: 300, maxRetryTime: 30_000, retries: 10 },
    });
  }

  /** Connects, makes sure the dead-letter topic exists, and resolves once the consumer has joined its group. */
  async start(): Promise<void> {
    if (this.producer) throw new Error('the worker is started already');
    // Not idempotent: kafkajs wants unbounded retries for that, and a dead letter written twice
    // after a lost acknowledgement is harmless (its x-dlq-source-* headers identify it).
    this.producer = this.kafka.producer({
      maxInFlightRequests: 1,
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    await this.producer.connect();
    await this.ensureDeadLetterTopic();
    if (this.stopping) return;
    await this.startConsumer();
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
      clearTimeout(this.restartTimer);
      await this.consumer?.disconnect().catch((error: unknown) => this.logger.warn({ reason: safeErrorText(error) }, 'consumer disconnect failed'));
      await this.producer?.disconnect().catch((error: unknown) => this.logger.warn({ reason: safeErrorText(error) }, 'producer disconnect failed'));
      this.logger.info({ groupId: this.groupId }, 'invitation mail worker stopped');
    })();
    return this.stopped;
  }

  private async ensureDeadLetterTopic(): Promise<void> {
    const admin = this.kafka.admin();
    try {
      await admin.connect();
      const created = await admin.createTopics({ topics: [{ topic: this.deadLetterTopic }], waitForLeaders: true });
      if (created) this.logger.info({ topic: this.deadLetterTopic }, 'dead-letter topic created');
    } catch (error) {
      // Not allowed to create topics, say: the first dead letter will tell whether it exists.
      this.logger.warn({ topic: this.deadLetterTopic, reason: safeErrorText(error) }, 'could not make sure the dead-letter topic exists');
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  }

  private async startConsumer(): Promise<void> {
    const consumer = this.kafka.consumer({
      groupId: this.groupId,
      sessionTimeout: this.options.sessionTimeoutMs ?? 30_000,
      heartbeatInterval: this.options.heartbeatIntervalMs ?? 3_000,
      maxWaitTimeInMs: this.options.maxWaitTimeMs ?? 2_000,
      retry: { initialRetryTime: 300, maxRetryTime: 30_000, retries: 10 },
    });
    this.consumer = consumer;
    let onJoin: () => void = () => undefined;
    const joined = new Promise<void>((resolve) => (onJoin = resolve));
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      this.restartAttempts = 0;
      this.logger.info(
        { groupId: payload.groupId, memberId: payload.memberId, assignment: payload.memberAssignment },
        'joined the consumer group',
      );
      onJoin();
    });
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      if (this.stopping || this.consumer !== consumer) return;
      if (payload.restart) {
        this.logger.warn({ reason: safeErrorText(payload.error) }, 'consumer crashed; kafkajs restarts it');
        return;
      }
      this.scheduleRestart(consumer, payload.error);
    });
    await consumer.connect();
    await consumer.subscribe({ topics: [this.topic], fromBeginning: this.options.fromBeginning ?? true });
    if (this.stopping) return; // stop() disconnects this.consumer
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: this.options.partitionsConsumedConcurrently ?? 2,
      eachBatch: (payload) => this.onBatch(payload),
    });
    const signal = this.stopController.signal;
    const stopRequested = new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await Promise.race([joined, stopRequested]);
  }

  private scheduleRestart(failed: Consumer, error: unknown): void {
    if (this.stopping) return;
    this.restartAttempts++;
    const delay = this.backoff(this.restartAttempts, 1_000, 60_000);
    this.logger.error({ reason: safeErrorText(error), restartInMs: delay, attempt: this.restartAttempts }, 'consumer crashed; starting a new one');
    clearTimeout(this.restartTimer);
    this.restartTimer = setTimeout(() => {
      void (async () => {
        await failed.disconnect().catch(() => undefined);
        if (this.stopping) return;
        try {
          await this.startConsumer();
        } catch (restartError) {
          if (this.consumer) this.scheduleRestart(this.consumer, restartError);
        }
      })();
    }, delay);
  }

  private canContinue(payload: EachBatchPayload): boolean {
    return !this.stopping && payload.isRunning() && !payload.isStale();
  }

  /**
   * A batch is handled with up to `mailsInFlightPerPartition` messages in flight at once, a new one
   * started as soon as one ends (no barrier between groups): messages of different keys (users) run
   * side by side, those of one key one after another. The offset committed is always the end of the
   * unbroken run of handled messages from the start of the batch, at most every COMMIT_INTERVAL_MS
   * and when the batch ends.
   */
  private async onBatch(payload: EachBatchPayload): Promise<void> {
    const { batch } = payload;
    const limit = this.options.mailsInFlightPerPartition ?? DEFAULT_MAILS_IN_FLIGHT;
    const progress = new BatchProgress(batch.messages.length);
    const lastOfKey = new Map<string, Promise<boolean>>();
    const inFlight = new Set<Promise<boolean>>();
    let leftOne = false; // a message was left for later (stopping, partition lost): start no more
    let committing: Promise<void> = Promise.resolve();
    let committedAt = Date.now();
    const commit = (force: boolean): Promise<void> => {
      committing = committing.then(async () => {
        const upTo = progress.handledPrefix();
        if (upTo <= progress.committed || (!force && Date.now() - committedAt < COMMIT_INTERVAL_MS)) return;
        const last = batch.messages[upTo - 1]!;
        payload.resolveOffset(last.offset);
        await payload.commitOffsetsIfNecessary({
          topics: [{ topic: batch.topic, partitions: [{ partition: batch.partition, offset: (BigInt(last.offset) + 1n).toString() }] }],
        });
        progress.committed = upTo;
        committedAt = Date.now();
        this.options.metrics?.consumerLag(batch.topic, batch.partition, Number(batch.highWatermark) - Number(last.offset) - 1);
        await payload.heartbeat();
      });
      return committing;
    };

    for (const [index, message] of batch.messages.entries()) {
      while (inFlight.size >= limit && !leftOne) await Promise.race([...inFlight].map((task) => task.catch(() => false)));
      if (leftOne || !this.canContinue(payload)) break;
      const key = message.key ? `k:${message.key.toString('base64')}` : `i:${index}`;
      const before = lastOfKey.get(key) ?? Promise.resolve(true);
      // One key's messages in order: each waits for the one before it, and is left too if that one was.
      const task: Promise<boolean> = before.then(async (previousHandled) => {
        if (!previousHandled || leftOne) return false;
        const handled = await this.handleWithRetry(batch.topic, batch.partition, message, payload);
        if (handled) progress.handled(index);
        else leftOne = true;
        return handled;
      });
      lastOfKey.set(key, task);
      inFlight.add(task);
      void task.then(
        () => {
          inFlight.delete(task);
          void commit(false).catch(() => undefined);
        },
        () => {
          inFlight.delete(task);
          leftOne = true;
        },
      );
    }
    // Every started message settles; a failure (a rebalance seen while heartbeating) is raised after.
    const outcomes = await Promise.allSettled([...inFlight, ...lastOfKey.values()]);
    await commit(true);
    const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /** true once the message is handled for good (its offset may be committed); false when it must be left for later. */
  private async handleWithRetry(topic: string, partition: number, message: KafkaMessage, payload: EachBatchPayload): Promise<boolean> {
    const where = { topic, partition, offset: message.offset, eventId: peekEventId(message.value) };
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
        await this.publishDeadLetter(deadLetter, message, where);
        this.options.metrics?.deadLettered(deadLetter.reason);
        return true;
      } catch (error) {
        this.options.metrics?.mailFailed();
        if (!this.canContinue(payload)) {
          this.logger.info({ ...where, reason: safeErrorText(error) }, 'stopping: message left uncommitted for redelivery');
          return false;
        }
        const delay = this.backoff(attempt, this.initialDelayMs, this.maxDelayMs);
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
    return handleMailEvent(event, this.options.issueInvitation);
  }

  private logOutcome(outcome: Exclude<MailEventOutcome, DeadLetter>, where: object, attempt: number): void {
    if (outcome.action === 'ignored') {
      this.logger.debug({ ...where, eventId: outcome.eventId, type: outcome.type }, 'event ignored (not a mail event)');
      return;
    }
    this.logger.info(
      { ...where, eventId: outcome.eventId, userId: outcome.userId, type: outcome.type, outcome: outcome.outcome, attempts: attempt },
      outcome.outcome === 'sent' ? 'invitation mail sent' : `invitation mail event handled: ${outcome.outcome}`,
    );
  }

  private async publishDeadLetter(
    deadLetter: DeadLetter,
    message: KafkaMessage,
    where: { topic: string; partition: number; offset: string; eventId?: string },
  ): Promise<void> {
    if (!this.producer) throw new Error('the worker is not started');
    const headers: IHeaders = {};
    // The original headers, except any x-dlq-* of an earlier dead-lettering (replayed from a DLQ).
    for (const [name, value] of Object.entries(message.headers ?? {})) {
      if (!name.toLowerCase().startsWith(HEADER_PREFIX) && value !== undefined) headers[name] = value;
    }
    Object.assign(headers, {
      'x-dlq-reason': deadLetter.reason,
      'x-dlq-error': deadLetter.error,
      'x-dlq-source-topic': where.topic,
      'x-dlq-source-partition': String(where.partition),
      'x-dlq-source-offset': where.offset,
      'x-dlq-consumer-group': this.groupId,
      'x-dlq-failed-at': new Date().toISOString(),
    });
    await this.producer.send({
      topic: this.deadLetterTopic,
      acks: -1,
      messages: [{ key: message.key, value: message.value, headers, timestamp: message.timestamp }],
    });
    this.logger.error(
      {
        ...where,
        reason: deadLetter.reason,
        error: deadLetter.error,
        eventId: deadLetter.eventId ?? where.eventId,
        userId: deadLetter.userId,
        type: deadLetter.type,
        deadLetterTopic: this.deadLetterTopic,
      },
      'event dead-lettered',
    );
  }

  /** Sleeps `ms`, heartbeating on the way; false when the worker stops or the partition is taken away meanwhile. */
  private async waitBeforeRetry(ms: number, payload: EachBatchPayload): Promise<boolean> {
    const until = Date.now() + ms;
    while (Date.now() < until) {
      await this.sleep(Math.min(1_000, until - Date.now()));
      if (!this.canContinue(payload)) return false;
      await payload.heartbeat(); // a rebalance error propagates: kafkajs rejoins, the message stays uncommitted
    }
    return this.canContinue(payload);
  }

  private sleep(ms: number): Promise<void> {
    const signal = this.stopController.signal;
    if (signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  private backoff(attempt: number, initial: number, max: number): number {
    const base = Math.min(max, initial * 2 ** Math.min(attempt - 1, 30));
    return Math.round(Math.min(max, base * (0.8 + Math.random() * 0.4)));
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

/** Offsets may be committed at most this often while a batch is being handled (and always at its end). */
const COMMIT_INTERVAL_MS = 100;

/** Which messages of a batch are handled, and how far an unbroken run of them reaches from its start. */
class BatchProgress {
  private readonly done: boolean[];
  private prefix = 0;
  /** Messages whose offsets are committed (a prefix of the batch). */
  committed = 0;

  constructor(size: number) {
    this.done = new Array<boolean>(size).fill(false);
  }

  handled(index: number): void {
    this.done[index] = true;
  }

  handledPrefix(): number {
    while (this.prefix < this.done.length && this.done[this.prefix]) this.prefix++;
    return this.prefix;
  }
}
