import type { Clock } from '../../../src/application/ports/clock.port';

export const DEFAULT_NOW = new Date('2026-01-31T12:00:00.000Z');

/** A clock that stands still until a test sets or advances it. */
export class FixedClock implements Clock {
  private current: number;

  constructor(start: Date | string = DEFAULT_NOW) {
    this.current = new Date(start).getTime();
  }

  now(): Date {
    // A fresh Date each time: a caller that mutates it cannot move the clock.
    return new Date(this.current);
  }

  set(to: Date | string): void {
    this.current = new Date(to).getTime();
  }

  advance(milliseconds: number): void {
    this.current += milliseconds;
  }
}
