import type { Logger } from '../logging/logger';
import { Backoff } from '../system/backoff';
import type { CommittedKind } from './commit-signal';
import { OutboxPublishPass } from './outbox-publish-pass';
import { OutboxRelayLoop } from './outbox-relay-loop';
import { type OutboxRelayOptions, outboxRelaySettings } from './outbox-relay-options';
import { OutboxRetentionSweeper } from './outbox-retention-sweeper';

export type { OutboxRelayOptions } from './outbox-relay-options';
export { PublishTimeoutError } from './outbox-publish-pass';

export interface OutboxRelayStatus {
  running: boolean;
  /** Asleep until a nudge or the next poll: the last pass found nothing to publish. */
  idle: boolean;
  /** Events this relay published since it was created. */
  published: number;
  /** Failed passes in a row (0 when the last pass worked). */
  consecutiveFailures: number;
  /** Set while backing off: when the next pass may run. */
  backoffUntil: Date | null;
  /** A log-safe reason of the last failure. */
  lastError: string | null;
}

/**
 * Publishes committed outbox rows and marks them published (see `OutboxPublishPass` for how rows
 * are claimed, `OutboxRelayLoop` for when, `OutboxRetentionSweeper` for when they are deleted).
 *
 * Delivery is at least once: a batch whose acknowledgement is lost is published again.
 * `start()` runs the loop; `nudge()` asks for a pass now; `flush()` publishes everything pending;
 * `stop()` lets the pass in flight finish and ends the loop. The publisher is not closed here.
 */
export class OutboxRelay {
  private readonly logger: Logger;
  private readonly batchSize: number;
  private readonly pollIntervalMs: number;
  private readonly lingers: { lingerMs: number; auditLingerMs: number };
  private readonly pass: OutboxPublishPass;
  private readonly sweeper: OutboxRetentionSweeper;
  private readonly backoff: Backoff;
  private readonly loop: OutboxRelayLoop;

  constructor(options: OutboxRelayOptions) {
    const settings = outboxRelaySettings(options);
    const { dataSource, publisher } = options;
    this.logger = options.logger.child({ component: 'outbox-relay' });
    this.batchSize = settings.batchSize;
    this.pollIntervalMs = settings.pollIntervalMs;
    this.lingers = { lingerMs: settings.lingerMs, auditLingerMs: settings.auditLingerMs };
    this.pass = new OutboxPublishPass({ ...settings, dataSource, publisher, logger: this.logger });
    this.sweeper = new OutboxRetentionSweeper({ ...settings, dataSource, logger: this.logger });
    this.backoff = new Backoff(settings.backoff, settings.clock);
    this.loop = new OutboxRelayLoop({ ...settings, pass: this.pass, sweeper: this.sweeper, backoff: this.backoff, logger: this.logger });
  }

  /** Starts the loop; a no-op when it runs already. */
  start(): void {
    if (!this.loop.start()) return;
    this.logger.info({ batchSize: this.batchSize, pollIntervalMs: this.pollIntervalMs, ...this.lingers }, 'outbox relay started');
  }

  /** Lets the pass in flight finish, then ends the loop. Pending rows stay for the next start (or `flush()`). */
  async stop(): Promise<void> {
    if (await this.loop.stop()) this.logger.info({ published: this.pass.published }, 'outbox relay stopped');
  }

  /**
   * Something was committed with events: publish now rather than at the next poll (after `lingerMs`,
   * or `auditLingerMs` when `kind` is `audit`: audit entries only). Cheap and safe to call any time;
   * it does not cut a backoff short (Kafka being down is not news).
   */
  nudge(kind: CommittedKind = 'events'): void {
    this.loop.nudge(kind);
  }

  /** One pass: claims, publishes and marks at most one batch. Resolves to the events published; rejects when it failed. */
  async drainOnce(): Promise<number> {
    const outcome = await this.pass.run();
    if (outcome.failure !== undefined) throw outcome.failure;
    return outcome.published;
  }

  /**
   * Publishes everything claimable now, batch after batch (shutdown, tests). Resolves to the
   * events published; rejects at the first failed pass. Rows another relay holds are left to it.
   */
  async flush(): Promise<number> {
    let total = 0;
    for (;;) {
      const published = await this.drainOnce();
      if (published === 0) return total;
      total += published;
    }
  }

  /** Deletes published rows older than the retention, in bounded batches; never an unpublished row. */
  purgeExpired(): Promise<number> {
    return this.sweeper.purgeExpired();
  }

  status(): OutboxRelayStatus {
    return {
      running: this.loop.running,
      idle: this.loop.idle,
      published: this.pass.published,
      consecutiveFailures: this.backoff.consecutiveFailures,
      backoffUntil: this.backoff.waitingUntil(),
      lastError: this.loop.lastError,
    };
  }
}
