import type { FastifyBaseLogger } from 'fastify';
import { describeError } from '../../infrastructure/logging/logger';
import { backoffDelay, sleepUnlessAborted } from '../../infrastructure/system/backoff';

export interface AfterAnswerOptions {
  logger: FastifyBaseLogger;
  /** Attempts per task before it is given up (logged as an error). */
  maxAttempts?: number;
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** Tasks running (or waiting to try again) at once, at most; one more waits for room (AfterAnswer.admit). */
  maxPending?: number;
  /** How long a task waits for room before it is refused (AfterAnswerFullError). */
  admitTimeoutMs?: number;
  /**
   * Once `drain` begins, how long the tasks still owed have to finish: an attempt still running then (a database
   * that takes connections and never answers) is given up and logged, so the stop ends inside the process's grace.
   */
  drainTimeoutMs?: number;
}

/** No room came for a task within `admitTimeoutMs`: the caller answers that the service is busy, and nothing was started. */
export class AfterAnswerFullError extends Error {
  constructor(readonly task: string) {
    super(`no room for a deferred task (${task}) in time`);
    this.name = 'AfterAnswerFullError';
  }
}

/** An attempt still running when the stop's time for owed tasks ran out. */
class PastStopDeadline extends Error {
  constructor(ms: number) {
    super(`not done within ${ms} ms of the stop`);
    this.name = 'PastStopDeadline';
  }
}

interface Waiting {
  name: string;
  task: () => Promise<void>;
  admitted: () => void;
  timer: NodeJS.Timeout;
}

/**
 * Work a route hands off once its answer is decided, so that how long the answer takes says nothing of
 * that work (the password-reset request: only a known address commits a write). A task that fails (the
 * database away) is tried again with backoff, `maxAttempts` times (20 by default: about two minutes); closing the app waits for the
 * tasks still running and gives each one last try, for at most `drainTimeoutMs` in all: a task not done by then
 * (the database away) is given up and logged, one error line each, never dropped without a word.
 *
 * Bounded: at most `maxPending` tasks at once. A task beyond waits for one to end, in arrival order, and its
 * request waits with it (backpressure: a flood of requests is answered as fast as their work is done, not
 * faster); after `admitTimeoutMs` without room it is refused, so neither memory nor the work owed after answers
 * already given grows without bound, and a crash can lose at most `maxPending` of them. Room depends on every
 * caller's tasks together, never on one request's own input.
 */
export class AfterAnswer {
  private readonly running = new Set<Promise<void>>();
  private readonly waiting: Waiting[] = [];
  private readonly closing = new AbortController();
  private readonly logger: FastifyBaseLogger;
  private readonly maxAttempts: number;
  private readonly initialDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly maxPending: number;
  private readonly admitTimeoutMs: number;
  private readonly drainTimeoutMs: number;
  /**
   * Set `drainTimeoutMs` after `drain` began: every attempt running then is given up with it, and every later one at
   * once. The attempts running register to be told (`giveUp`), and leave when they settle: no promise lives longer
   * than its attempt. (A race of each attempt against one promise that settles only at the stop kept a reaction on
   * that promise per attempt, and with it the request's context, its User-Agent among it: a password-reset request
   * for any address grew the heap for good.)
   */
  private pastDeadline: PastStopDeadline | null = null;
  private readonly giveUp = new Set<(error: PastStopDeadline) => void>();

  constructor(options: AfterAnswerOptions) {
    this.logger = options.logger;
    this.maxAttempts = options.maxAttempts ?? 20;
    this.initialDelayMs = options.initialDelayMs ?? 100;
    this.maxDelayMs = options.maxDelayMs ?? 10_000;
    this.maxPending = options.maxPending ?? 100;
    this.admitTimeoutMs = options.admitTimeoutMs ?? 5_000;
    this.drainTimeoutMs = options.drainTimeoutMs ?? 10_000;
  }

  /**
   * Starts `task` in the background (`name`, no personal data, names it in the log), at once when there is room,
   * else once a task before it ends; resolves when it has started. Rejects with AfterAnswerFullError, the task not
   * started, when no room came within `admitTimeoutMs`.
   */
  admit(name: string, task: () => Promise<void>): Promise<void> {
    if (this.running.size < this.maxPending && this.waiting.length === 0) {
      this.start(name, task);
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const entry: Waiting = {
        name,
        task,
        admitted: resolve,
        timer: setTimeout(() => {
          this.waiting.splice(this.waiting.indexOf(entry), 1);
          reject(new AfterAnswerFullError(name));
        }, this.admitTimeoutMs),
      };
      this.waiting.push(entry);
    });
  }

  /** How many tasks are running (or waiting to try again); those waiting for room are not counted. */
  get pending(): number {
    return this.running.size;
  }

  /** How many tasks wait for room. */
  get queued(): number {
    return this.waiting.length;
  }

  /**
   * Stops waiting between attempts and resolves once every task has succeeded or been given up, those that
   * were waiting for room included (each still gets its attempts, the last one at once).
   */
  async drain(): Promise<void> {
    if (!this.closing.signal.aborted) {
      setTimeout(() => {
        this.pastDeadline = new PastStopDeadline(this.drainTimeoutMs);
        for (const giveUp of this.giveUp) giveUp(this.pastDeadline);
      }, this.drainTimeoutMs).unref();
    }
    this.closing.abort();
    while (this.running.size > 0 || this.waiting.length > 0) await Promise.allSettled([...this.running]);
  }

  private start(name: string, task: () => Promise<void>): void {
    const done: Promise<void> = this.attempts(name, task).finally(() => {
      this.running.delete(done);
      // The room goes to the first waiting task, started here: no later caller can take it in between.
      const next = this.waiting.shift();
      if (next) {
        clearTimeout(next.timer);
        this.start(next.name, next.task);
        next.admitted();
      }
    });
    this.running.add(done);
  }

  /** `attempt`'s outcome, or PastStopDeadline once the stop's time for owed tasks has run out, whichever comes first. */
  private beforeDeadline(attempt: Promise<void>): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (this.pastDeadline) return reject(this.pastDeadline);
      this.giveUp.add(reject);
      attempt.then(resolve, reject).finally(() => this.giveUp.delete(reject));
    });
  }

  private async attempts(name: string, task: () => Promise<void>): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.beforeDeadline(task());
        if (attempt > 1) this.logger.info({ task: name, attempts: attempt }, 'deferred task done after retrying');
        return;
      } catch (error) {
        // Stopping: one last try (its second attempt since the stop began, or any attempt past the stop's deadline).
        const last = attempt >= this.maxAttempts || (this.closing.signal.aborted && attempt > 1) || error instanceof PastStopDeadline;
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
