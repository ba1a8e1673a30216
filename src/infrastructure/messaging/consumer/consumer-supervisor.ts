import type { Consumer, Kafka } from 'kafkajs';
import type { Logger } from '../../logging/logger';
import { type KafkaCondition, type KafkaConditionKind, kafkaConditionOf, TopicMissingError } from '../kafka-conditions';
import { backoffDelay, sleepUnlessAborted } from '../../system/backoff';

export type ConsumerState = 'starting' | 'waiting' | 'consuming' | 'stopped';

/** What the mailer's /readyz reports. */
export type ConsumerStatus = {
  ready: boolean;
  state: ConsumerState;
  /** Why it is waiting (state `waiting`). */
  condition?: KafkaConditionKind;
  /** When the current state began. */
  since: string;
};

export interface ConsumerSupervisorOptions {
  /** The client consumers are made from. */
  kafka: Kafka;
  /** A client without retries of its own, for the quick check between two attempts. */
  probe: Kafka;
  topic: string;
  groupId: string;
  fromBeginning: boolean;
  logger: Logger;
  consumer: { sessionTimeoutMs: number; heartbeatIntervalMs: number; maxWaitTimeMs: number };
  /** Runs before each consumer is started (the dead-letter producer connects): its failure is waited out like any other. */
  prepare?: () => Promise<void>;
  /** Starts consumption on a connected, subscribed consumer: `consumer.run(...)`. */
  run: (consumer: Consumer) => Promise<void>;
  /** Waits between attempts: from `initialMs` (1 000) doubling up to `maxMs` (30 000), ±20 %. */
  backoff?: { initialMs?: number; maxMs?: number };
}

/**
 * kafkajs gives up on a consumer after this many tries of one operation (a fetch, a join), then
 * reports a crash: kept short so that a broker gone away shows as "not ready" within seconds; the
 * supervisor's own backoff is what keeps trying, for as long as the process runs.
 */
const CONSUMER_RETRY = { initialRetryTime: 300, maxRetryTime: 5_000, retries: 5 };

const WAITING_MESSAGES: Record<KafkaConditionKind, string> = {
  'topic-missing': 'the events topic does not exist yet (created by `npm run migrate`, or the API with MIGRATE_ON_START=true); consuming as soon as it does',
  'broker-unreachable': 'Kafka is not reachable; retrying with backoff',
  'coordinator-unavailable': 'the consumer group coordinator is not available yet; retrying with backoff',
  'not-authorized': 'Kafka refuses this client (not authorized); retrying until that changes',
  refused: 'Kafka refused a request of the consumer; retrying with backoff',
  unexpected: 'the consumer failed; starting a new one after a backoff',
};

/**
 * Keeps one consumer of the events topic running for as long as the process does. The process
 * never ends because of the cluster: a missing topic, a broker that is not up yet or went away, a
 * coordinator that is loading, or a consumer that kafkajs gave up on (a crash) are all waited out
 * with a capped backoff, and a new consumer is started. Each change of state is logged once (not
 * each retry), and `status()` says whether it is consuming, for the readiness probe.
 *
 * Every restart is done here rather than by kafkajs (`restartOnFailure` answers false), so a
 * crash always shows as "waiting", whatever kafkajs would have decided.
 */
export class ConsumerSupervisor {
  private readonly options: ConsumerSupervisorOptions;
  private readonly logger: Logger;
  private readonly initialMs: number;
  private readonly maxMs: number;
  private state: ConsumerState = 'starting';
  private condition: KafkaConditionKind | undefined;
  private since = Date.now();
  private consumer: Consumer | null = null;
  private loopDone: Promise<void> | null = null;
  private reachedConsuming = false;
  /** Waiting because a request of the running consumer timed out (enterSilent), not because it crashed. */
  private silent = false;
  private readonly stopController = new AbortController();
  private readonly stopRequested: Promise<undefined>;
  private onFirstConsuming: () => void = () => undefined;
  private readonly firstConsuming = new Promise<void>((resolve) => (this.onFirstConsuming = resolve));

  constructor(options: ConsumerSupervisorOptions) {
    this.options = options;
    this.logger = options.logger;
    this.initialMs = options.backoff?.initialMs ?? 1_000;
    this.maxMs = Math.max(this.initialMs, options.backoff?.maxMs ?? 30_000);
    const signal = this.stopController.signal;
    this.stopRequested = new Promise((resolve) => signal.addEventListener('abort', () => resolve(undefined), { once: true }));
  }

  /** Starts the loop; resolves once a consumer has joined its group, or when `stop()` is called first. */
  start(): Promise<void> {
    if (this.loopDone) throw new Error('the consumer supervisor is started already');
    this.loopDone = this.loop().catch((error: unknown) => {
      // Not expected: every failure is handled in the loop. Never an unhandled rejection.
      this.logger.error({ reason: kafkaConditionOf(error).reason }, 'consumer supervisor ended unexpectedly');
    });
    return Promise.race([this.firstConsuming, this.stopRequested.then(() => undefined)]);
  }

  /** Stops the consumer (it finishes and commits the batch in hand and leaves its group) and the loop. */
  async stop(): Promise<void> {
    this.stopController.abort();
    await this.consumer?.disconnect().catch((error: unknown) => this.logger.warn({ reason: kafkaConditionOf(error).reason }, 'consumer disconnect failed'));
    await this.loopDone;
    this.setState('stopped');
  }

  status(): ConsumerStatus {
    return {
      ready: this.state === 'consuming',
      state: this.state,
      ...(this.state === 'waiting' ? { condition: this.condition } : {}),
      since: new Date(this.since).toISOString(),
    };
  }

  private get stopping(): boolean {
    return this.stopController.signal.aborted;
  }

  private async loop(): Promise<void> {
    for (let attempt = 1; !this.stopping; attempt++) {
      this.reachedConsuming = false;
      this.silent = false;
      let failure: unknown;
      try {
        failure = await this.runOnce();
      } catch (error) {
        failure = error;
      }
      if (this.stopping) return;
      const condition = kafkaConditionOf(failure);
      // A consumer that ran and then crashed, or a new condition (the broker is up now, the topic
      // still missing), starts the backoff over: something changed, so look again soon.
      if (this.reachedConsuming || this.state !== 'waiting' || condition.kind !== this.condition) attempt = 1;
      const delay = backoffDelay(attempt, this.initialMs, this.maxMs);
      this.enterWaiting(condition, delay, attempt);
      await sleepUnlessAborted(delay, this.stopController.signal);
    }
  }

  /** One consumer, from connecting to its crash: resolves to what ended it (undefined: a stop). */
  private async runOnce(): Promise<unknown> {
    // The quick check first: a broker that is away or a topic not there yet shows at once.
    await this.requireTopic();
    await this.options.prepare?.();
    if (this.stopping) return undefined;
    const { consumer: settings } = this.options;
    const consumer = this.options.kafka.consumer({
      groupId: this.options.groupId,
      sessionTimeout: settings.sessionTimeoutMs,
      heartbeatInterval: settings.heartbeatIntervalMs,
      maxWaitTimeInMs: settings.maxWaitTimeMs,
      // The events topic is created by the migrate step, never by a consumer asking for it.
      allowAutoTopicCreation: false,
      retry: { ...CONSUMER_RETRY, restartOnFailure: async () => false },
    });
    this.consumer = consumer;
    const crashed = new Promise<unknown>((resolve) => {
      consumer.on(consumer.events.CRASH, ({ payload }) => resolve(payload.error));
    });
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      if (this.consumer !== consumer || this.stopping) return;
      this.logger.info({ groupId: payload.groupId, memberId: payload.memberId, assignment: payload.memberAssignment }, 'joined the consumer group');
      this.enterConsuming();
    });
    // A broker that takes requests and never answers (stalled, or its answers lost) crashes nothing for minutes: kafkajs
    // times each request out and tries again. Not ready from the first request that timed out until one is answered.
    consumer.on(consumer.events.REQUEST_TIMEOUT, ({ payload }) => {
      if (this.consumer === consumer && !this.stopping) this.enterSilent(payload.broker);
    });
    const answered = () => {
      if (this.consumer === consumer && !this.stopping && this.silent) this.enterConsuming();
    };
    consumer.on(consumer.events.FETCH, answered);
    consumer.on(consumer.events.HEARTBEAT, answered);
    try {
      await consumer.connect();
      await consumer.subscribe({ topics: [this.options.topic], fromBeginning: this.options.fromBeginning });
      if (this.stopping) return undefined; // stop() disconnects this.consumer
      await this.options.run(consumer);
      return await Promise.race([crashed, this.stopRequested]);
    } finally {
      if (!this.stopping) {
        this.consumer = null;
        await consumer.disconnect().catch(() => undefined);
      }
    }
  }

  /** Subscribing to a missing topic would retry for a long while and then fail vaguely: ask first. */
  private async requireTopic(): Promise<void> {
    const admin = this.options.probe.admin();
    try {
      await admin.connect();
      const topics = await admin.listTopics();
      if (!topics.includes(this.options.topic)) throw new TopicMissingError(this.options.topic);
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  }

  /** A consuming consumer's request went unanswered: waiting, while kafkajs keeps trying, until one is answered. */
  private enterSilent(broker: string): void {
    if (this.state !== 'consuming') return;
    this.logger.warn(
      { topic: this.options.topic, groupId: this.options.groupId, condition: 'broker-unreachable', reason: `a request to ${broker} got no answer in time` },
      'not consuming: Kafka does not answer; the consumer keeps trying',
    );
    this.condition = 'broker-unreachable';
    this.silent = true;
    this.setState('waiting');
  }

  private enterConsuming(): void {
    this.silent = false;
    if (this.state === 'waiting') {
      this.logger.info({ topic: this.options.topic, groupId: this.options.groupId, waitedMs: Date.now() - this.since }, 'consuming again');
    }
    this.reachedConsuming = true;
    this.setState('consuming');
    this.onFirstConsuming();
  }

  private enterWaiting(condition: KafkaCondition, delay: number, attempt: number): void {
    const fields = { topic: this.options.topic, groupId: this.options.groupId, condition: condition.kind, reason: condition.reason, retryInMs: delay };
    if (this.state !== 'waiting' || this.condition !== condition.kind) {
      const message = `not consuming: ${WAITING_MESSAGES[condition.kind]}`;
      if (condition.retriable) this.logger.warn(fields, message);
      else this.logger.error(fields, message);
    } else {
      this.logger.debug({ ...fields, attempt, waitingMs: Date.now() - this.since }, 'still waiting');
    }
    this.condition = condition.kind;
    this.setState('waiting');
  }

  private setState(state: ConsumerState): void {
    if (this.state === state) return;
    this.state = state;
    this.since = Date.now();
  }
}
