import type { Clock } from '../../src/application/ports/clock.port';

/** The real time plus an offset a test can move forward, to cross expiry boundaries. */
export class AdjustableClock implements Clock {
  private offsetMs = 0;

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  advance(ms: number): void {
    this.offsetMs += ms;
  }
}
