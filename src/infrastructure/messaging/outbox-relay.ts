import type { DataSource, QueryRunner } from 'typeorm';
import type { Clock } from '../../application/ports/clock.port';
import { describeError, type Logger } from '../logging/logger';
import { isMysqlFamily } from '../persistence/typeorm/data-source';
import {
  type CloudEvent,
  DEFAULT_EVENT_SOURCE,
  type EventPublisher,
  MalformedOutboxPayloadError,
  toCloudEvent,
} from './cloud-event';
import {
  claimSql,
  countFailedAttemptSql,
  deleteExpiredSql,
  expiredSql,
  markPublishedSql,
  type OutboxRow,
  toOutboxMessage,
  toSqlDatetime,
} from './outbox-claims';

/** Runs `work` alone on the database connection; see `OutboxRelayOptions.exclusive`. */
export type Exclusive = <T>(work: () => Promise<T>) => Promise<T>;

export interface OutboxRelayOptions {
  dataSource: DataSource;
  publisher: EventPublisher;
  logger: Logger;
  /** CloudEvents `source` of every event. Default `/access-control`. */
  source?: string;
  /** Rows claimed per pass. Default 100. */
  batchSize?: number;
  /** How often the loop looks for rows nobody nudged it about (other replicas, missed nudges). Default 250 ms. */
  pollIntervalMs?: number;
  /**
   * How long a pass waits after a nudge (and after a pass that published something) so that commits
   * arriving meanwhile go out in the same pass: one claim, one Kafka request and one update for several
   * events instead of one each. Default 10 ms; 0 starts the pass at once.
   */
  lingerMs?: number;
  /** Backoff after a failed pass: exponential from `initialMs`, capped at `maxMs`, ±20 % jitter. Default 500 ms → 30 s. */
  backoff?: { initialMs?: number; maxMs?: number };
  /** A publish not settled within this time counts as failed (it may still land: at least once). Default 30 s. */
  publishTimeoutMs?: number;
  retention?: {
    /** Published rows older than this are deleted; unpublished rows never are. Default 7 days. */
    afterMs?: number;
    /** How often the loop sweeps. Default 5 minutes (the first sweep right after start). */
    sweepIntervalMs?: number;
    /** Rows deleted per statement. Default 500. */
    deleteBatchSize?: number;
    /** Statements per sweep; what is left waits for the next sweep. Default 20. */
    maxBatchesPerSweep?: number;
  };
  /**
   * SQLite only, and required there: SQLite has one connection that TypeORM shares, so a relay
   * statement issued while a unit-of-work transaction is open would run inside it (and see its
   * uncommitted rows). Pass the serializer the unit of work runs its transactions through. The
   * relay holds it only for single statements, never while publishing, so a subscriber of the
   * in-process bus may run transactions of its own. Ignored on MySQL/MariaDB.
   */
  exclusive?: Exclusive;
  clock?: Clock;
}

export interface OutboxRelayStatus {
  running: boolean;
  /** Events this relay published since it was created. */
  published: number;
  /** Failed passes in a row (0 when the last pass worked). */
  consecutiveFailures: number;
  /** Set while backing off: when the next pass may run. */
  backoffUntil: Date | null;
  /** A log-safe reason of the last failure. */
  lastError: string | null;
}

const DEFAULTS = {
  batchSize: 100,
  pollIntervalMs: 250,
  lingerMs: 10,
  backoffInitialMs: 500,
  backoffMaxMs: 30_000,
  publishTimeoutMs: 30_000,
  retentionMs: 7 * 24 * 60 * 60 * 1000,
  sweepIntervalMs: 5 * 60 * 1000,
  deleteBatchSize: 500,
  maxBatchesPerSweep: 20,
} as const;

type Execute = (sql: string, parameters?: unknown[]) => Promise<unknown>;

interface PassOutcome {
  published: number;
  failure?: unknown;
}

/**
 * Publishes committed outbox rows and marks them published.
 *
 * - MySQL/MariaDB: each pass claims rows with `SELECT … FOR UPDATE SKIP LOCKED` in a READ COMMITTED
 *   transaction that stays open while the batch is published and marked, so several relays (one
 *   per replica) never publish the same row in normal operation. Only the oldest unpublished row
 *   of each user is claimable (see `claimSql`), so one user's events are published in order.
 * - SQLite (the embedded default, one process): the same query without locks, one statement at a
 *   time through `exclusive`, and no transaction held while publishing.
 *
 * Delivery is at least once: a batch whose acknowledgement is lost is published again.
 * `start()` runs the loop (nudges, a short poll, capped exponential backoff while publishing
 * fails, retention sweeps); `nudge()` asks for a pass now; `flush()` publishes everything pending;
 * `stop()` lets the pass in flight finish and ends the loop. The publisher is not closed here.
 */
export class OutboxRelay {
  private readonly dataSource: DataSource;
  private readonly publisher: EventPublisher;
  private readonly logger: Logger;
  private readonly source: string;
  private readonly batchSize: number;
  private readonly pollIntervalMs: number;
  private readonly lingerMs: number;
  private lingerTimer: NodeJS.Timeout | undefined;
  private readonly backoffInitialMs: number;
  private readonly backoffMaxMs: number;
  private readonly publishTimeoutMs: number;
  private readonly retentionMs: number;
  private readonly sweepIntervalMs: number;
  private readonly deleteBatchSize: number;
  private readonly maxBatchesPerSweep: number;
  private readonly exclusive: Exclusive;
  private readonly clock: Clock;
  private readonly lockRows: boolean;

  private loopDone: Promise<void> | null = null;
  private stopping = false;
  private nudged = false;
  private wake: (() => void) | null = null;
  private wakeOnNudge = false;
  private passQueue: Promise<unknown> = Promise.resolve();
  private nextSweepAt = 0;
  private publishedTotal = 0;
  private consecutiveFailures = 0;
  private backoffUntil = 0;
  private lastError: string | null = null;

  constructor(options: OutboxRelayOptions) {
    this.dataSource = options.dataSource;
    this.publisher = options.publisher;
    this.logger = options.logger.child({ component: 'outbox-relay' });
    this.source = options.source ?? DEFAULT_EVENT_SOURCE;
    this.batchSize = integer(options.batchSize ?? DEFAULTS.batchSize, 'batchSize');
    this.pollIntervalMs = positive(options.pollIntervalMs ?? DEFAULTS.pollIntervalMs, 'pollIntervalMs');
    this.lingerMs = options.lingerMs ?? DEFAULTS.lingerMs;
    if (!Number.isFinite(this.lingerMs) || this.lingerMs < 0) throw new RangeError(`lingerMs must be 0 or more (got ${this.lingerMs})`);
    this.backoffInitialMs = positive(options.backoff?.initialMs ?? DEFAULTS.backoffInitialMs, 'backoff.initialMs');
    this.backoffMaxMs = Math.max(this.backoffInitialMs, positive(options.backoff?.maxMs ?? DEFAULTS.backoffMaxMs, 'backoff.maxMs'));
    this.publishTimeoutMs = positive(options.publishTimeoutMs ?? DEFAULTS.publishTimeoutMs, 'publishTimeoutMs');
    this.retentionMs = positive(options.retention?.afterMs ?? DEFAULTS.retentionMs, 'retention.afterMs');
    this.sweepIntervalMs = positive(options.retention?.sweepIntervalMs ?? DEFAULTS.sweepIntervalMs, 'retention.sweepIntervalMs');
    this.deleteBatchSize = integer(options.retention?.deleteBatchSize ?? DEFAULTS.deleteBatchSize, 'retention.deleteBatchSize');
    this.maxBatchesPerSweep = integer(
      options.retention?.maxBatchesPerSweep ?? DEFAULTS.maxBatchesPerSweep,
      'retention.maxBatchesPerSweep',
    );
    this.clock = options.clock ?? { now: () => new Date() };
    this.lockRows = isMysqlFamily(this.dataSource);
    if (this.lockRows) {
      this.exclusive = (work) => work();
    } else if (options.exclusive) {
      this.exclusive = options.exclusive;
    } else {
      throw new Error(
        'OutboxRelay on SQLite needs `exclusive`: the serializer its unit of work runs transactions through',
      );
    }
    if (this.batchSize > 500) throw new RangeError('batchSize must be at most 500');
    if (this.deleteBatchSize > 500) throw new RangeError('retention.deleteBatchSize must be at most 500');
  }

  /** Starts the loop; a no-op when it runs already. */
  start(): void {
    if (this.loopDone) return;
    this.stopping = false;
    this.nextSweepAt = 0;
    this.loopDone = this.loop()
      .catch((error: unknown) => {
        // Not expected (every pass and sweep failure is handled in the loop); never an unhandled rejection.
        this.logger.error({ reason: describeError(error) }, 'outbox relay loop ended unexpectedly');
      })
      .finally(() => {
        this.loopDone = null;
      });
    this.logger.info({ batchSize: this.batchSize, pollIntervalMs: this.pollIntervalMs }, 'outbox relay started');
  }

  /** Lets the pass in flight finish, then ends the loop. Pending rows stay for the next start (or `flush()`). */
  async stop(): Promise<void> {
    const done = this.loopDone;
    if (!done) return;
    this.stopping = true;
    clearTimeout(this.lingerTimer);
    this.lingerTimer = undefined;
    this.wake?.();
    await done;
    this.logger.info({ published: this.publishedTotal }, 'outbox relay stopped');
  }

  /**
   * Something was committed with events: publish now rather than at the next poll. Cheap and
   * safe to call any time; it does not cut a backoff short (Kafka being down is not news).
   */
  nudge(): void {
    this.nudged = true;
    if (!this.wake || !this.wakeOnNudge) return;
    if (this.lingerMs === 0) {
      this.wake();
      return;
    }
    // Wake after the linger, once however many nudges arrive meanwhile.
    this.lingerTimer ??= setTimeout(() => {
      this.lingerTimer = undefined;
      if (this.wakeOnNudge) this.wake?.();
    }, this.lingerMs);
  }

  /** One pass: claims, publishes and marks at most one batch. Resolves to the events published; rejects when it failed. */
  async drainOnce(): Promise<number> {
    const outcome = await this.serialized(() => this.pass());
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
  async purgeExpired(): Promise<number> {
    const cutoff = toSqlDatetime(new Date(this.clock.now().getTime() - this.retentionMs));
    let deleted = 0;
    for (let batch = 0; batch < this.maxBatchesPerSweep; batch++) {
      const rows = await this.exclusive(
        () => this.dataSource.query(expiredSql(this.deleteBatchSize), [cutoff]) as Promise<{ id: string }[]>,
      );
      if (rows.length === 0) break;
      const ids = rows.map((row) => row.id);
      await this.exclusive(() => this.dataSource.query(deleteExpiredSql(ids.length), [cutoff, ...ids]));
      deleted += ids.length;
      if (rows.length < this.deleteBatchSize) break;
    }
    if (deleted > 0) this.logger.info({ deleted }, 'deleted published outbox events past their retention');
    return deleted;
  }

  status(): OutboxRelayStatus {
    return {
      running: this.loopDone !== null && !this.stopping,
      published: this.publishedTotal,
      consecutiveFailures: this.consecutiveFailures,
      backoffUntil: this.backoffUntil > Date.now() ? new Date(this.backoffUntil) : null,
      lastError: this.lastError,
    };
  }

  // ---------------------------------------------------------------------------------------------

  private async loop(): Promise<void> {
    while (!this.stopping) {
      const backoffLeft = this.backoffUntil - Date.now();
      if (backoffLeft > 0) {
        await this.sweepIfDue(); // retention does not wait for Kafka
        if (!this.stopping) await this.sleep(Math.max(0, this.backoffUntil - Date.now()), false);
        continue;
      }
      this.nudged = false;
      const outcome = await this.serialized(() => this.pass());
      if (outcome.failure !== undefined) {
        this.onFailure(outcome.failure);
        continue;
      }
      this.onSuccess();
      if (outcome.published > 0) {
        // More may be waiting (a user's next event, a full batch): the next pass after the linger.
        if (this.lingerMs > 0 && !this.stopping) await this.sleep(this.lingerMs, false);
        continue;
      }
      await this.sweepIfDue();
      if (this.nudged || this.stopping) continue;
      await this.sleep(this.pollIntervalMs, true);
    }
  }

  /** Passes of one relay never overlap (the loop, `flush()` and `drainOnce()` take turns). */
  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const result = this.passQueue.then(work, work);
    this.passQueue = result.catch(() => undefined);
    return result;
  }

  private async pass(): Promise<PassOutcome> {
    try {
      return this.lockRows ? await this.passWithRowLocks() : await this.passOnSingleConnection();
    } catch (error) {
      return { published: 0, failure: error };
    }
  }

  private async passWithRowLocks(): Promise<PassOutcome> {
    const runner: QueryRunner = this.dataSource.createQueryRunner();
    try {
      await runner.connect();
      await runner.startTransaction('READ COMMITTED');
      try {
        const rows = (await runner.query(claimSql(this.batchSize, true))) as OutboxRow[];
        const outcome = await this.publishClaimed(rows, (sql, parameters) => runner.query(sql, parameters));
        await runner.commitTransaction();
        return outcome;
      } catch (error) {
        if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
        throw error;
      }
    } finally {
      await runner.release();
    }
  }

  private async passOnSingleConnection(): Promise<PassOutcome> {
    const execute: Execute = (sql, parameters) => this.exclusive(() => this.dataSource.query(sql, parameters));
    const rows = (await execute(claimSql(this.batchSize, false))) as OutboxRow[];
    return this.publishClaimed(rows, execute);
  }

  /** Publishes the claimed rows and marks them; a failed publish counts an attempt and is reported, not thrown. */
  private async publishClaimed(rows: OutboxRow[], execute: Execute): Promise<PassOutcome> {
    if (rows.length === 0) return { published: 0 };
    const events: CloudEvent[] = [];
    const malformed: OutboxRow[] = [];
    for (const row of rows) {
      try {
        events.push(toCloudEvent(toOutboxMessage(row), this.source));
      } catch (error) {
        if (!(error instanceof MalformedOutboxPayloadError)) throw error;
        malformed.push(row);
      }
    }
    // Left unpublished: only this user's later events wait behind it (they are not claimable).
    // Said once, at error, when first seen (attempts still 0); later passes skip it quietly.
    const firstSeen = malformed.filter((row) => Number(row.attempts) === 0);
    if (firstSeen.length > 0) {
      this.logger.error(
        { events: firstSeen.map((row) => ({ id: row.id, type: row.type })) },
        'outbox events with a payload that is not a JSON object; their users\' later events are held back',
      );
      await execute(countFailedAttemptSql(firstSeen.length), firstSeen.map((row) => row.id));
    }
    if (malformed.length > firstSeen.length) this.logger.debug({ count: malformed.length - firstSeen.length }, 'malformed outbox events skipped');
    if (events.length === 0) return { published: 0 };

    const ids = events.map((event) => event.id);
    try {
      await withTimeout(this.publisher.publish(events), this.publishTimeoutMs);
    } catch (failure) {
      await execute(countFailedAttemptSql(ids.length), ids);
      return { published: 0, failure };
    }
    await execute(markPublishedSql(ids.length), [toSqlDatetime(this.clock.now()), ...ids]);
    this.publishedTotal += ids.length;
    this.logger.debug({ count: ids.length }, 'outbox events published');
    return { published: ids.length };
  }

  private onSuccess(): void {
    if (this.consecutiveFailures > 0) {
      this.logger.info({ failedAttempts: this.consecutiveFailures }, 'outbox relay publishing again');
    }
    this.consecutiveFailures = 0;
    this.backoffUntil = 0;
    this.lastError = null;
  }

  private onFailure(failure: unknown): void {
    this.consecutiveFailures += 1;
    const exponential = this.backoffInitialMs * 2 ** Math.min(this.consecutiveFailures - 1, 30);
    const capped = Math.min(this.backoffMaxMs, exponential);
    const delay = Math.round(Math.min(this.backoffMaxMs, capped * (0.8 + Math.random() * 0.4)));
    this.backoffUntil = Date.now() + delay;
    this.lastError = describeError(failure);
    this.logger.warn(
      { attempt: this.consecutiveFailures, retryInMs: delay, reason: this.lastError },
      'outbox relay could not publish; backing off',
    );
  }

  private async sweepIfDue(): Promise<void> {
    if (Date.now() < this.nextSweepAt) return;
    this.nextSweepAt = Date.now() + this.sweepIntervalMs;
    try {
      await this.purgeExpired();
    } catch (error) {
      this.logger.warn({ reason: describeError(error) }, 'outbox retention sweep failed; retrying at the next sweep');
    }
  }

  private sleep(ms: number, wakeOnNudge: boolean): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        if (this.wake === done) this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
      this.wakeOnNudge = wakeOnNudge;
    });
  }
}

export class PublishTimeoutError extends Error {
  constructor(ms: number) {
    super(`publish did not settle within ${ms} ms`);
    this.name = 'PublishTimeoutError';
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new PublishTimeoutError(ms)), ms);
  });
  promise.catch(() => undefined); // settles after the timeout sometimes; never unhandled
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function integer(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value <= 0) throw new RangeError(`${name} must be a positive integer (got ${value})`);
  return value;
}

function positive(value: number, name: string): number {
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${name} must be a positive number (got ${value})`);
  return value;
}
