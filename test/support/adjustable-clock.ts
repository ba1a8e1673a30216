import type { Clock } from '../../src/application/ports/clock.port';

/** The real time plus an offset a test can move forward, to cross expiry boundaries. */
export class AdjustableClock implements Clock {
  private offsetMs = 0;
  private frozenAt: number | null = null;

  now(): Date {
    return new Date((this.frozenAt ?? Date.now()) + this.offsetMs);
  }

  /** Stops the clock at the current time (advance still moves it). */
  freeze(): void {
    this.frozenAt = Date.now();
  }

  advance(ms: number): void {
    this.offsetMs += ms;
  }
}
