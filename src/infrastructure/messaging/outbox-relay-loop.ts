import { describeError, type Logger } from '../logging/logger';
import type { Backoff } from '../system/backoff';
import { ClockAlarm } from '../system/clock-alarm';
import type { CommittedKind } from './commit-signal';
import type { OutboxPublishPass } from './outbox-publish-pass';
import type { OutboxRelaySettings } from './outbox-relay-options';
import type { OutboxRetentionSweeper } from './outbox-retention-sweeper';

export type OutboxRelayLoopOptions = Pick<OutboxRelaySettings, 'clock' | 'pollIntervalMs' | 'lingerMs' | 'auditLingerMs'> & {
  pass: OutboxPublishPass;
  sweeper: OutboxRetentionSweeper;
  backoff: Backoff;
  logger: Logger;
};

/**
 * Which nudges end a wait: any (asleep until the next poll), only those of user events (an audit
 * linger, which a user event cuts short), or none (a short linger, a backoff).
 */
type WakeOn = 'any' | 'events' | 'none';

/**
 * When the relay runs a pass: soon after a nudge (after the linger), every poll interval when
 * nobody nudges, again after the linger while passes publish something, and not before the
 * backoff is over while they fail (nudges notwithstanding: Kafka being down is not news).
 * While only audit entries are waiting (only `audit` nudges, a pass of audit entries only that
 * was not full) the linger is `auditLingerMs` instead, cut to `lingerMs` by a user event's nudge.
 * Retention sweeps run between passes, backoff or not.
 *
 * Every wait is a deadline on the injected clock; real timers only wake the loop to read it.
 */
export class OutboxRelayLoop {
  private readonly options: OutboxRelayLoopOptions;
  private done: Promise<void> | null = null;
  private stopping = false;
  private nudged = false;
  /** A nudge of user events (not audit entries only) since the current pass started. */
  private eventsNudged = false;
  private alarm: ClockAlarm | null = null;
  private wakeOn: WakeOn = 'none';
  private lastFailure: string | null = null;

  constructor(options: OutboxRelayLoopOptions) {
    this.options = options;
  }

  get running(): boolean {
    return this.done !== null && !this.stopping;
  }

  /** Asleep until a nudge or the next poll: the last pass found nothing to publish. */
  get idle(): boolean {
    return this.alarm !== null && this.wakeOn === 'any';
  }

  /** A log-safe reason of the last failed pass, until a pass works again. */
  get lastError(): string | null {
    return this.lastFailure;
  }

  /** Starts the loop, its first sweep right away; false when it runs already. */
  start(): boolean {
    if (this.done) return false;
    this.stopping = false;
    this.options.sweeper.sweepNext();
    this.done = this.loop()
      .catch((error: unknown) => {
        // Not expected (every pass and sweep failure is handled in the loop); never an unhandled rejection.
        this.options.logger.error({ reason: describeError(error) }, 'outbox relay loop ended unexpectedly');
      })
      .finally(() => {
        this.done = null;
      });
    return true;
  }

  /** Lets the pass in flight finish, then ends the loop; false when it was not running. */
  async stop(): Promise<boolean> {
    const done = this.done;
    if (!done) return false;
    this.stopping = true;
    this.alarm?.ring();
    await done;
    return true;
  }

  nudge(kind: CommittedKind = 'events'): void {
    this.nudged = true;
    if (kind === 'events') this.eventsNudged = true;
    if (!this.alarm || this.wakeOn === 'none' || (this.wakeOn === 'events' && kind !== 'events')) return;
    const linger = kind === 'events' ? this.options.lingerMs : this.options.auditLingerMs;
    if (linger === 0) {
      this.alarm.ring();
      return;
    }
    // Once however many nudges arrive meanwhile: a later nudge does not push the pass back.
    this.alarm.bringForward(this.now() + linger);
  }

  private async loop(): Promise<void> {
    const { pass, sweeper, backoff, lingerMs, auditLingerMs, pollIntervalMs } = this.options;
    while (!this.stopping) {
      const backoffUntil = backoff.waitingUntil();
      if (backoffUntil) {
        await sweeper.sweepIfDue(); // retention does not wait for Kafka
        if (!this.stopping) await this.sleepUntil(backoffUntil.getTime(), 'none');
        continue;
      }
      this.nudged = false;
      this.eventsNudged = false;
      const outcome = await pass.run();
      if (outcome.failure !== undefined) {
        this.onFailure(outcome.failure);
        continue;
      }
      this.onSuccess();
      if (outcome.published > 0) {
        // More may be waiting (a user's next event, a full batch): the next pass after the linger, a longer
        // one when only audit entries went out and may be coming (cut short by a user event's nudge).
        const auditOnly = !outcome.full && (outcome.userEvents ?? 0) === 0 && !this.eventsNudged;
        await this.linger(auditOnly ? auditLingerMs : lingerMs, auditOnly);
        continue;
      }
      await sweeper.sweepIfDue();
      if (this.stopping) continue;
      if (this.nudged) {
        // Committed while the pass ran: at once for a user event, after the audit linger for audit entries only.
        if (!this.eventsNudged) await this.linger(auditLingerMs, true);
        continue;
      }
      await this.sleepUntil(this.now() + pollIntervalMs, 'any');
    }
  }

  private async linger(ms: number, audit: boolean): Promise<void> {
    if (ms > 0 && !this.stopping) await this.sleepUntil(this.now() + ms, audit ? 'events' : 'none');
  }

  private onSuccess(): void {
    const { backoff, logger } = this.options;
    if (backoff.consecutiveFailures > 0) {
      logger.info({ failedAttempts: backoff.consecutiveFailures }, 'outbox relay publishing again');
    }
    backoff.reset();
    this.lastFailure = null;
  }

  private onFailure(failure: unknown): void {
    const { backoff, logger } = this.options;
    const delay = backoff.fail();
    this.lastFailure = describeError(failure);
    logger.warn(
      { attempt: backoff.consecutiveFailures, retryInMs: delay, reason: this.lastFailure },
      'outbox relay could not publish; backing off',
    );
  }

  /** The poll interval paces the clock checks too: a clock moved forward is noticed within one. */
  private async sleepUntil(at: number, wakeOn: WakeOn): Promise<void> {
    const alarm = new ClockAlarm(this.options.clock, at, this.options.pollIntervalMs);
    this.alarm = alarm;
    this.wakeOn = wakeOn;
    await alarm.rung;
    if (this.alarm === alarm) this.alarm = null;
  }

  private now(): number {
    return this.options.clock.now().getTime();
  }
}
