import type { Clock } from '../../application/ports/clock.port';

/**
 * Rings once the injected clock reaches a time, or earlier when rung by hand. Real timers only
 * pace the look at the clock, at most `checkEveryMs` apart: the clock decides, so a clock a test
 * moves forward ends the wait within `checkEveryMs`, and one that stands still never does.
 * A clock that steps back (the wall clock corrected) moves the time back with it, so the wait
 * is not stretched by the step.
 */
export class ClockAlarm {
  readonly rung: Promise<void>;
  private resolve: () => void = () => undefined;
  private timer: NodeJS.Timeout | undefined;
  private settled = false;
  private lastSeen: number;

  constructor(
    private readonly clock: Clock,
    private at: number,
    private readonly checkEveryMs: number,
  ) {
    this.rung = new Promise((resolve) => (this.resolve = resolve));
    this.lastSeen = clock.now().getTime();
    this.check();
  }

  /** Rings at `at` instead when that is earlier; a later time changes nothing. */
  bringForward(at: number): void {
    if (this.settled) return;
    this.observe();
    if (at >= this.at) return;
    this.at = at;
    this.check();
  }

  ring(): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    this.resolve();
  }

  /** It never rings: whoever awaits `rung` waits forever, so only a race may await it. */
  cancel(): void {
    this.settled = true;
    clearTimeout(this.timer);
  }

  private check(): void {
    clearTimeout(this.timer);
    const left = this.at - this.observe();
    if (left <= 0) {
      this.ring();
      return;
    }
    this.timer = setTimeout(() => this.check(), Math.min(left, this.checkEveryMs));
  }

  private observe(): number {
    const now = this.clock.now().getTime();
    if (now < this.lastSeen) this.at -= this.lastSeen - now;
    this.lastSeen = now;
    return now;
  }
}
