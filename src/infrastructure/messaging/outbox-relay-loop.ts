import { describeError, type Logger } from '../logging/logger';
import type { Backoff } from '../system/backoff';
import { ClockAlarm } from '../system/clock-alarm';
import type { OutboxPublishPass } from './outbox-publish-pass';
import type { OutboxRelaySettings } from './outbox-relay-options';
import type { OutboxRetentionSweeper } from './outbox-retention-sweeper';

export type OutboxRelayLoopOptions = Pick<OutboxRelaySettings, 'clock' | 'pollIntervalMs' | 'lingerMs'> & {
  pass: OutboxPublishPass;
  sweeper: OutboxRetentionSweeper;
  backoff: Backoff;
  logger: Logger;
};

/**
 * When the relay runs a pass: soon after a nudge (after the linger), every poll interval when
 * nobody nudges, again after the linger while passes publish something, and not before the
 * backoff is over while they fail (nudges notwithstanding: Kafka being down is not news).
 * Retention sweeps run between passes, backoff or not.
 *
 * Every wait is a deadline on the injected clock; real timers only wake the loop to read it.
 */
export class OutboxRelayLoop {
  private readonly options: OutboxRelayLoopOptions;
  private done: Promise<void> | null = null;
  private stopping = false;
  private nudged = false;
  private alarm: ClockAlarm | null = null;
  private wakeOnNudge = false;
  private lastFailure: string | null = null;

  constructor(options: OutboxRelayLoopOptions) {
    this.options = options;
  }

  get running(): boolean {
    return this.done !== null && !this.stopping;
  }

  /** Asleep until a nudge or the next poll: the last pass found nothing to publish. */
  get idle(): boolean {
    return this.alarm !== null && this.wakeOnNudge;
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

  nudge(): void {
    this.nudged = true;
    if (!this.alarm || !this.wakeOnNudge) return;
    if (this.options.lingerMs === 0) {
      this.alarm.ring();
      return;
    }
    // Once however many nudges arrive meanwhile: a later nudge does not push the pass back.
    this.alarm.bringForward(this.now() + this.options.lingerMs);
  }

  private async loop(): Promise<void> {
    const { pass, sweeper, backoff, lingerMs, pollIntervalMs } = this.options;
    while (!this.stopping) {
      const backoffUntil = backoff.waitingUntil();
      if (backoffUntil) {
        await sweeper.sweepIfDue(); // retention does not wait for Kafka
        if (!this.stopping) await this.sleepUntil(backoffUntil.getTime(), false);
        continue;
      }
      this.nudged = false;
      const outcome = await pass.run();
      if (outcome.failure !== undefined) {
        this.onFailure(outcome.failure);
        continue;
      }
      this.onSuccess();
      if (outcome.published > 0) {
        // More may be waiting (a user's next event, a full batch): the next pass after the linger.
        if (lingerMs > 0 && !this.stopping) await this.sleepUntil(this.now() + lingerMs, false);
        continue;
      }
      await sweeper.sweepIfDue();
      if (this.nudged || this.stopping) continue;
      await this.sleepUntil(this.now() + pollIntervalMs, true);
    }
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
  private async sleepUntil(at: number, wakeOnNudge: boolean): Promise<void> {
    const alarm = new ClockAlarm(this.options.clock, at, this.options.pollIntervalMs);
    this.alarm = alarm;
    this.wakeOnNudge = wakeOnNudge;
    await alarm.rung;
    if (this.alarm === alarm) this.alarm = null;
  }

  private now(): number {
    return this.options.clock.now().getTime();
  }
}
