import { type IHeaders, type Kafka, type KafkaMessage, Partitioners, type Producer } from 'kafkajs';
import type { Logger } from '../../logging/logger';
import { kafkaConditionOf } from '../kafka-conditions';
import type { MailEventOutcome } from './mail-event-handler';

export type DeadLetter = Extract<MailEventOutcome, { action: 'dead-letter' }>;

/** Where a message came from, for the dead letter's headers and the log line. */
export interface MessageOrigin {
  topic: string;
  partition: number;
  offset: string;
  eventId?: string;
}

const HEADER_PREFIX = 'x-dlq-';

/**
 * `retention.ms` of the dead-letter topic, whoever creates it (the migrate step or the mailer): kept for good. A dead
 * letter is a mail nobody received and that waits for an operator; the broker's default (7 days) would delete it
 * unseen after a long weekend.
 */
export const DEAD_LETTER_RETENTION_MS = -1;

export interface DeadLetterPublisherOptions {
  kafka: Kafka;
  topic: string;
  /** The consumer group whose message it was (header `x-dlq-consumer-group`). */
  groupId: string;
  logger: Logger;
  /** How to create the topic when it is missing at start (kept for good: DEAD_LETTER_RETENTION_MS); the broker's defaults otherwise. */
  topicSettings?: { partitions?: number; replicationFactor?: number };
}

/**
 * Sends a message that can never be handled to the dead-letter topic, with its key, value and
 * headers and `x-dlq-*` headers saying why. The topic is normally created by the migrate step;
 * `connect()` also creates it when missing, as a convenience, and is not stopped by failing to.
 */
export class DeadLetterPublisher {
  private readonly options: DeadLetterPublisherOptions;
  private readonly logger: Logger;
  private producer: Producer | null = null;
  private topicSettled = false;

  constructor(options: DeadLetterPublisherOptions) {
    this.options = options;
    this.logger = options.logger;
  }

  get topic(): string {
    return this.options.topic;
  }

  /** Connects the producer (once; again after a failed attempt) and makes sure the topic exists. */
  async connect(): Promise<void> {
    if (!this.producer) {
      // Not idempotent: kafkajs wants unbounded retries for that, and a dead letter written twice
      // after a lost acknowledgement is harmless (its x-dlq-source-* headers identify it).
      const producer = this.options.kafka.producer({ maxInFlightRequests: 1, createPartitioner: Partitioners.DefaultPartitioner });
      try {
        await producer.connect();
      } catch (error) {
        await producer.disconnect().catch(() => undefined);
        throw error;
      }
      this.producer = producer;
    }
    if (!this.topicSettled) await this.ensureTopic();
  }

  async disconnect(): Promise<void> {
    const producer = this.producer;
    this.producer = null;
    await producer?.disconnect();
  }

  async publish(deadLetter: DeadLetter, message: KafkaMessage, where: MessageOrigin): Promise<void> {
    if (!this.producer) throw new Error('the dead-letter publisher is not connected');
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
      'x-dlq-consumer-group': this.options.groupId,
      'x-dlq-failed-at': new Date().toISOString(),
    });
    await this.producer.send({
      topic: this.options.topic,
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
        deadLetterTopic: this.options.topic,
      },
      'event dead-lettered',
    );
  }

  private async ensureTopic(): Promise<void> {
    const admin = this.options.kafka.admin();
    const { partitions, replicationFactor } = this.options.topicSettings ?? {};
    try {
      await admin.connect();
      const created = await admin.createTopics({
        topics: [
          {
            topic: this.options.topic,
            numPartitions: partitions ?? -1,
            replicationFactor: replicationFactor ?? -1,
            configEntries: [{ name: 'retention.ms', value: String(DEAD_LETTER_RETENTION_MS) }],
          },
        ],
        waitForLeaders: true,
      });
      if (created) this.logger.info({ topic: this.options.topic }, 'dead-letter topic created');
      this.topicSettled = true;
    } catch (error) {
      const condition = kafkaConditionOf(error);
      // Not allowed to create topics, say: the first dead letter will tell whether it exists. Asked
      // again at the next connect only when the broker could not answer.
      this.topicSettled = !condition.retriable;
      this.logger.warn({ topic: this.options.topic, reason: condition.reason }, 'could not make sure the dead-letter topic exists');
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  }
}
