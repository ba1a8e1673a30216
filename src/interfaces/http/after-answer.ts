import type { FastifyBaseLogger } from 'fastify';
import { describeError } from '../../infrastructure/logging/logger';
import { backoffDelay, sleepUnlessAborted } from '../../infrastructure/system/backoff';

export interface AfterAnswerOptions {
  logger: FastifyBaseLogger;
  /** Attempts per task before it is given up (logged as an error). */
  maxAttempts?: number;
  initialDelayMs?: number;
  maxDelayMs?: number;
}

/**
 * Work a route hands off once its answer is decided, so that how long the answer takes says nothing of
 * that work (the password-reset request: only a known address commits a write). A task that fails (the
 * database away) is tried again with backoff, about two minutes in all; closing the app waits for the
 * tasks still running and gives each one last try, so a graceful stop loses none.
 */
export class AfterAnswer {
  private readonly running = new Set<Promise<void>>();
  private readonly closing = new AbortController();
  private readonly logger: FastifyBaseLogger;
  private readonly maxAttempts: number;
  private readonly initialDelayMs: number;
  private readonly maxDelayMs: number;

  constructor(options: AfterAnswerOptions) {
    this.logger = options.logger;
    this.maxAttempts = options.maxAttempts ?? 20;
    this.initialDelayMs = options.initialDelayMs ?? 100;
    this.maxDelayMs = options.maxDelayMs ?? 10_000;
  }

  /** Starts `task` now, in the background; `name` (no personal data) names it in the log. */
  run(name: string, task: () => Promise<void>): void {
    const done: Promise<void> = this.attempts(name, task).finally(() => this.running.delete(done));
    this.running.add(done);
  }

  /** How many tasks are still running (or waiting to try again). */
  get pending(): number {
    return this.running.size;
  }

  /** Stops waiting between attempts and resolves once every task has succeeded or been given up. */
  async drain(): Promise<void> {
    this.closing.abort();
    await Promise.allSettled([...this.running]);
  }

  private async attempts(name: string, task: () => Promise<void>): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await task();
        if (attempt > 1) this.logger.info({ task: name, attempts: attempt }, 'deferred task done after retrying');
        return;
      } catch (error) {
        const last = attempt >= this.maxAttempts || (this.closing.signal.aborted && attempt > 1);
        if (last) {
          this.logger.error({ task: name, attempts: attempt, err: describeError(error) }, 'deferred task given up');
          return;
        }
        this.logger.warn({ task: name, attempt, err: describeError(error) }, 'deferred task failed; trying again');
        await sleepUnlessAborted(backoffDelay(attempt, this.initialDelayMs, this.maxDelayMs), this.closing.signal);
      }
    }
  }
}
