import { type LogEntry, logLevel, Partitioners, type Producer } from 'kafkajs';
import { Kafka } from './kafka-client';
import type { Logger } from '../logging/logger';
import { AUDIT_EVENT_TYPE, type CloudEvent, type EventPublisher, kafkaHeadersFor } from './cloud-event';

export interface KafkaEventPublisherOptions {
  /** Bootstrap servers, `host:port`. */
  brokers: readonly string[];
  /** Topic of the events (config.kafka.topic, default `access-control.user-events.v1`). */
  topic: string;
  /** Topic of the audit trail's entries (KAFKA_AUDIT_TOPIC); without one they are acknowledged and not sent. */
  auditTopic?: string;
  clientId: string;
  logger: Logger;
  /** TCP connect timeout. Default 3 000 ms. */
  connectionTimeoutMs?: number;
  /** How long one produce request may wait for the broker's answer. Default 10 000 ms. */
  requestTimeoutMs?: number;
  /**
   * Retries of one `publish` before it rejects (kafkajs retries with its own short backoff).
   * Kept small on purpose: the relay owns the long, capped backoff. Default 3.
   */
  retries?: number;
}

/** kafkajs' own warning for bounded retries; see `publish` for why they are safe here. */
const BOUNDED_RETRIES_WARNING = 'Limiting retries for the idempotent producer';

/**
 * Publishes CloudEvents (structured mode, JSON) to one Kafka topic: key = the user id (`subject`),
 * so one user's events land on one partition in order; headers `content-type`, `ce_id`, `ce_type`.
 * Idempotent producer, `acks: -1` (all in-sync replicas), one request in flight.
 */
export class KafkaEventPublisher implements EventPublisher {
  private readonly kafka: Kafka;
  private readonly topic: string;
  private readonly auditTopic: string | undefined;
  private readonly logger: Logger;
  private readonly retries: number;
  private producer: Promise<Producer> | null = null;
  private closed = false;

  constructor(options: KafkaEventPublisherOptions) {
    if (options.brokers.length === 0) throw new Error('KafkaEventPublisher needs at least one broker');
    this.topic = options.topic;
    this.auditTopic = options.auditTopic;
    this.logger = options.logger.child({ component: 'kafka-publisher' });
    this.retries = options.retries ?? 3;
    const retry = { initialRetryTime: 100, maxRetryTime: 2_000, retries: this.retries };
    this.kafka = new Kafka({
      clientId: options.clientId,
      brokers: [...options.brokers],
      connectionTimeout: options.connectionTimeoutMs ?? 3_000,
      requestTimeout: options.requestTimeoutMs ?? 10_000,
      retry,
      logLevel: logLevel.WARN,
      logCreator: () => (entry) => this.logKafka(entry),
    });
  }

  /**
   * Resolves once every event is acknowledged by all in-sync replicas. On failure the producer is
   * dropped and the next call starts a new one (a new producer id): after a lost acknowledgement
   * the retried batch may then be written twice (at least once, consumers deduplicate by `id`),
   * but a new batch can never be mistaken by the broker for a duplicate of the old one and dropped.
   */
  async publish(events: readonly CloudEvent[]): Promise<void> {
    if (this.closed) throw new Error('KafkaEventPublisher is closed');
    if (events.length === 0) return;
    const attempt = this.connectedProducer();
    try {
      const producer = await attempt;
      const message = (event: CloudEvent) => ({ key: event.subject, value: JSON.stringify(event), headers: kafkaHeadersFor(event) });
      const userEvents = events.filter((event) => event.type !== AUDIT_EVENT_TYPE);
      const auditEvents = this.auditTopic ? events.filter((event) => event.type === AUDIT_EVENT_TYPE) : [];
      const topicMessages = [
        ...(userEvents.length > 0 ? [{ topic: this.topic, messages: userEvents.map(message) }] : []),
        ...(auditEvents.length > 0 ? [{ topic: this.auditTopic!, messages: auditEvents.map(message) }] : []),
      ];
      if (topicMessages.length > 0) await producer.sendBatch({ acks: -1, topicMessages });
    } catch (error) {
      this.discard(attempt);
      throw error;
    }
  }

  /**
   * Connects the producer now rather than on the first publish (saves that publish ~100 ms).
   * Optional; rejects when Kafka is unreachable, and the next publish simply tries again.
   */
  async connect(): Promise<void> {
    if (this.closed) throw new Error('KafkaEventPublisher is closed');
    const attempt = this.connectedProducer();
    try {
      await attempt;
    } catch (error) {
      this.discard(attempt);
      throw error;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const producer = this.producer;
    this.producer = null;
    if (producer) await disconnect(producer);
  }

  private connectedProducer(): Promise<Producer> {
    if (!this.producer) {
      const producer = this.kafka.producer({
        // The topic is created by the migrate step with its partitions; a broker that auto-creates
        // topics would otherwise create it at the first publish with whatever its default is.
        // Publishing to a missing topic fails (UNKNOWN_TOPIC_OR_PARTITION) and the relay retries.
        allowAutoTopicCreation: false,
        idempotent: true,
        maxInFlightRequests: 1,
        retry: { initialRetryTime: 100, maxRetryTime: 2_000, retries: this.retries },
        createPartitioner: Partitioners.DefaultPartitioner,
      });
      this.producer = producer.connect().then(
        () => producer,
        async (error: unknown) => {
          await producer.disconnect().catch(() => undefined);
          throw error;
        },
      );
    }
    return this.producer;
  }

  private discard(attempt: Promise<Producer>): void {
    if (this.producer !== attempt) return;
    this.producer = null;
    void disconnect(attempt);
  }

  /** kafkajs' log lines, without their payloads (broker addresses and error messages only). */
  private logKafka({ level, log }: LogEntry): void {
    const { message, error, broker, retryCount } = log as { message: string; error?: string; broker?: string; retryCount?: number };
    const fields = { kafka: { error, broker, retryCount } };
    if (message.startsWith(BOUNDED_RETRIES_WARNING) || level > logLevel.WARN) {
      this.logger.debug(fields, message);
    } else {
      this.logger.warn(fields, message);
    }
  }
}

async function disconnect(producer: Promise<Producer>): Promise<void> {
  try {
    await (await producer).disconnect();
  } catch {
    /* never connected, or already gone */
  }
}
