import type { DataSource } from 'typeorm';
import type { Clock } from '../../application/ports/clock.port';
import type { Logger } from '../logging/logger';
import { isMysqlFamily } from '../persistence/typeorm/data-source';
import { SqliteWriteQueue } from '../persistence/typeorm/sqlite-write-queue';
import type { BackoffPolicy } from '../system/backoff';
import { SystemClock } from '../system/system-clock';
import { DEFAULT_EVENT_SOURCE, type EventPublisher } from './cloud-event';

export interface OutboxRelayOptions {
  dataSource: DataSource;
  publisher: EventPublisher;
  logger: Logger;
  /** CloudEvents `source` of every event. Default `/access-control`. */
  source?: string;
  /** Rows claimed per pass. Default 100. */
  batchSize?: number;
  /**
   * How often the loop looks for rows nobody nudged it about (other replicas, missed nudges), and
   * at most how long any of its waits goes without reading the clock again. Default 250 ms.
   */
  pollIntervalMs?: number;
  /**
   * How long a pass waits after a nudge (and after a pass that published something) so that commits
   * arriving meanwhile go out in the same pass: one claim, one Kafka request and one update for several
   * events instead of one each. Default 10 ms; 0 starts the pass at once.
   */
  lingerMs?: number;
  /**
   * The linger instead when only audit entries are waiting (#23: the nudges since the last pass were all
   * `audit`, and that pass published nothing else and was not full): nobody waits on an audit event the way
   * the mailer waits on an invitation, and under load one pass then carries tens of entries instead of a few,
   * for one claim, one Kafka request and one update (fewer statements, produce requests and wake-ups per
   * event). A user event committed meanwhile cuts it to `lingerMs`; a full batch is followed by `lingerMs`.
   * Default 100 ms (never less than `lingerMs`); 0 starts the pass at once.
   */
  auditLingerMs?: number;
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
    /**
     * How soon the next sweep runs after one that stopped at `maxBatchesPerSweep` with rows left: a replica whose
     * writes outrun one sweep's statements every `sweepIntervalMs` catches up instead of falling behind for good (soak
     * review of 2026-12-07). Default 5 s (never more than `sweepIntervalMs`).
     */
    catchUpIntervalMs?: number;
  };
  /**
   * SQLite only, and required there: SQLite has one connection that TypeORM shares, so a relay
   * statement issued while a unit-of-work transaction is open would run inside it (and see its
   * uncommitted rows). Pass the queue the unit of work runs its transactions through. The
   * relay holds it only for single statements, never while publishing, so a subscriber of the
   * in-process bus may run transactions of its own. Not needed on MySQL/MariaDB.
   */
  sqliteWriteQueue?: SqliteWriteQueue;
  /** Every time the relay reads or waits for (ages, deadlines, linger, poll). Default: the system clock. */
  clock?: Clock;
}

export interface RetentionSettings {
  afterMs: number;
  sweepIntervalMs: number;
  deleteBatchSize: number;
  maxBatchesPerSweep: number;
  catchUpIntervalMs: number;
}

/** The options with their defaults, checked. */
export interface OutboxRelaySettings {
  source: string;
  batchSize: number;
  pollIntervalMs: number;
  lingerMs: number;
  auditLingerMs: number;
  backoff: BackoffPolicy;
  publishTimeoutMs: number;
  retention: RetentionSettings;
  clock: Clock;
  /** MySQL/MariaDB: passes claim with `FOR UPDATE SKIP LOCKED` in a transaction. */
  lockRows: boolean;
  /** The one given, or on MySQL/MariaDB without one, a queue of the relay's own (which runs everything at once there). */
  sqliteWriteQueue: SqliteWriteQueue;
}

const DEFAULTS = {
  batchSize: 100,
  pollIntervalMs: 250,
  lingerMs: 10,
  auditLingerMs: 100,
  backoffInitialMs: 500,
  backoffMaxMs: 30_000,
  publishTimeoutMs: 30_000,
  retentionMs: 7 * 24 * 60 * 60 * 1000,
  sweepIntervalMs: 5 * 60 * 1000,
  deleteBatchSize: 500,
  maxBatchesPerSweep: 20,
  catchUpIntervalMs: 5_000,
} as const;

/** Throws a RangeError naming the first bad option, or an Error when SQLite comes without `sqliteWriteQueue`. */
export function outboxRelaySettings(options: OutboxRelayOptions): OutboxRelaySettings {
  const batchSize = integer(options.batchSize ?? DEFAULTS.batchSize, 'batchSize');
  const pollIntervalMs = positive(options.pollIntervalMs ?? DEFAULTS.pollIntervalMs, 'pollIntervalMs');
  const lingerMs = options.lingerMs ?? DEFAULTS.lingerMs;
  if (!Number.isFinite(lingerMs) || lingerMs < 0) throw new RangeError(`lingerMs must be 0 or more (got ${lingerMs})`);
  const auditLingerMs = options.auditLingerMs ?? Math.max(lingerMs, DEFAULTS.auditLingerMs);
  if (!Number.isFinite(auditLingerMs) || auditLingerMs < 0) throw new RangeError(`auditLingerMs must be 0 or more (got ${auditLingerMs})`);
  const initialMs = positive(options.backoff?.initialMs ?? DEFAULTS.backoffInitialMs, 'backoff.initialMs');
  const maxMs = Math.max(initialMs, positive(options.backoff?.maxMs ?? DEFAULTS.backoffMaxMs, 'backoff.maxMs'));
  const publishTimeoutMs = positive(options.publishTimeoutMs ?? DEFAULTS.publishTimeoutMs, 'publishTimeoutMs');
  const sweepIntervalMs = positive(options.retention?.sweepIntervalMs ?? DEFAULTS.sweepIntervalMs, 'retention.sweepIntervalMs');
  const retention: RetentionSettings = {
    afterMs: positive(options.retention?.afterMs ?? DEFAULTS.retentionMs, 'retention.afterMs'),
    sweepIntervalMs,
    deleteBatchSize: integer(options.retention?.deleteBatchSize ?? DEFAULTS.deleteBatchSize, 'retention.deleteBatchSize'),
    maxBatchesPerSweep: integer(options.retention?.maxBatchesPerSweep ?? DEFAULTS.maxBatchesPerSweep, 'retention.maxBatchesPerSweep'),
    catchUpIntervalMs: Math.min(sweepIntervalMs, positive(options.retention?.catchUpIntervalMs ?? DEFAULTS.catchUpIntervalMs, 'retention.catchUpIntervalMs')),
  };
  const lockRows = isMysqlFamily(options.dataSource);
  if (!lockRows && !options.sqliteWriteQueue) {
    throw new Error('OutboxRelay on SQLite needs `sqliteWriteQueue`: the queue its unit of work runs transactions through');
  }
  const sqliteWriteQueue = options.sqliteWriteQueue ?? new SqliteWriteQueue({ dataSource: options.dataSource });
  if (batchSize > 500) throw new RangeError('batchSize must be at most 500');
  if (retention.deleteBatchSize > 500) throw new RangeError('retention.deleteBatchSize must be at most 500');
  return {
    source: options.source ?? DEFAULT_EVENT_SOURCE,
    batchSize,
    pollIntervalMs,
    lingerMs,
    auditLingerMs,
    backoff: { initialMs, maxMs },
    publishTimeoutMs,
    retention,
    clock: options.clock ?? new SystemClock(),
    lockRows,
    sqliteWriteQueue,
  };
}

function integer(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value <= 0) throw new RangeError(`${name} must be a positive integer (got ${value})`);
  return value;
}

function positive(value: number, name: string): number {
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${name} must be a positive number (got ${value})`);
  return value;
}
