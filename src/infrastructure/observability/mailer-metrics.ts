import { Counter, Gauge, type Registry } from 'prom-client';
import { createMetricsRegistry } from './metrics-registry';

/** What the mail worker reports; a port of the worker, so it runs without metrics in tests. */
export interface MailerMetricsRecorder {
  mailSent(): void;
  /** A temporary failure: the message stays uncommitted and is retried. */
  mailFailed(): void;
  deadLettered(reason: string): void;
  /** Messages behind the partition's high watermark after the last one handled. */
  consumerLag(topic: string, partition: number, lag: number): void;
}

/** The mailer process's Prometheus metrics, served on MAILER_METRICS_PORT. */
export class MailerMetrics implements MailerMetricsRecorder {
  readonly registry: Registry;
  private readonly sent: Counter;
  private readonly failed: Counter;
  private readonly dead: Counter<'reason'>;
  private readonly lag: Gauge<'topic' | 'partition'>;

  constructor(registry: Registry = createMetricsRegistry('mailer')) {
    this.registry = registry;
    this.sent = new Counter({ name: 'access_control_mails_sent_total', help: 'Invitation mails accepted by the mail server', registers: [registry] });
    this.failed = new Counter({
      name: 'access_control_mails_failed_total',
      help: 'Temporary failures handling a mail event (retried with backoff; nothing is lost)',
      registers: [registry],
    });
    this.dead = new Counter({
      name: 'access_control_mails_dead_lettered_total',
      help: 'Mail events sent to the dead-letter topic, by reason',
      labelNames: ['reason'],
      registers: [registry],
    });
    this.lag = new Gauge({
      name: 'access_control_mailer_consumer_lag_messages',
      help: 'Messages not yet handled behind the high watermark, per partition this mailer owns (as of its last message)',
      labelNames: ['topic', 'partition'],
      registers: [registry],
    });
  }

  mailSent(): void {
    this.sent.inc();
  }

  mailFailed(): void {
    this.failed.inc();
  }

  deadLettered(reason: string): void {
    this.dead.inc({ reason });
  }

  consumerLag(topic: string, partition: number, lag: number): void {
    this.lag.set({ topic, partition: String(partition) }, Math.max(0, lag));
  }
}
