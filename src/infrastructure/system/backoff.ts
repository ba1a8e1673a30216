import type { Clock } from '../../application/ports/clock.port';

/** Capped exponential backoff with ±20 % jitter: `initialMs` doubled per attempt (1-based), at most `maxMs`. */
export function backoffDelay(attempt: number, initialMs: number, maxMs: number): number {
  const base = Math.min(maxMs, initialMs * 2 ** Math.min(Math.max(attempt, 1) - 1, 30));
  return Math.round(Math.min(maxMs, base * (0.8 + Math.random() * 0.4)));
}

export interface BackoffPolicy {
  initialMs: number;
  maxMs: number;
}

/**
 * `backoffDelay` for a worker that keeps trying until it succeeds: it counts the failures in a row
 * and keeps the deadline on the injected clock, so a test that moves the clock ends the wait.
 */
export class Backoff {
  private failuresInARow = 0;
  private untilMs = 0;

  constructor(
    private readonly policy: BackoffPolicy,
    private readonly clock: Clock,
  ) {}

  get consecutiveFailures(): number {
    return this.failuresInARow;
  }

  /** Counts a failure and returns the delay before the next attempt. */
  fail(): number {
    this.failuresInARow += 1;
    const delay = backoffDelay(this.failuresInARow, this.policy.initialMs, this.policy.maxMs);
    this.untilMs = this.clock.now().getTime() + delay;
    return delay;
  }

  /** A success: the next failure waits `initialMs` again. */
  reset(): void {
    this.failuresInARow = 0;
    this.untilMs = 0;
  }

  /** When the next attempt may run, while that is still ahead on the clock; null when it may run now. */
  waitingUntil(): Date | null {
    return this.untilMs > this.clock.now().getTime() ? new Date(this.untilMs) : null;
  }
}

/**
 * Waits `ms`, or less when `signal` aborts meanwhile (resolves either way, never rejects).
 * `keepAlive: false` for a wait in the background of a process that must still be able to end
 * without it; a process whose only work is the wait (a worker waiting for its broker) keeps it.
 */
export function sleepUnlessAborted(ms: number, signal?: AbortSignal, { keepAlive = true } = {}): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    if (!keepAlive) timer.unref();
    signal?.addEventListener('abort', done, { once: true });
  });
}
