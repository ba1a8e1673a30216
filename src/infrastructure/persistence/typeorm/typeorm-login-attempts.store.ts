import type { DataSource } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import type { ClaimOptions, LoginAttempts } from '../../../application/ports/login-attempts.port';
import type { AuditEntry } from '../../../domain/audit/audit-entry';
import { insertAuditEntries } from './audit/typeorm-audit-trail';
import { type LockoutPolicy, loginAttemptsIdleSeconds, lockoutWaitSeconds } from '../../../domain/users/lockout-policy';
import { isMysqlFamily } from './data-source';
import { retryDeadlocks } from './deadlock-retry';
import type { LoginAttemptKeys } from './login-attempt-key';
import { mfaSignInStatementsOf } from './mfa-sign-in-statements';
import { PeriodicPurge } from './periodic-purge';
import { LoginAttemptSchema } from './records';
import type { SqliteWriteQueue } from './sqlite-write-queue';

export interface TypeOrmLoginAttemptsDeps {
  dataSource: DataSource;
  sqliteWriteQueue: SqliteWriteQueue;
  loginAttemptKeys: LoginAttemptKeys;
  /** A purge runs after the claim that found it due, not in the sign-in's path: its failure is only reported. */
  onPurgeFailed?: (error: unknown) => void;
  /** How often this process deletes idle counters; every replica purges. */
  purgeEveryMs?: number;
}

/** Rows deleted per statement by the purge: a short delete holds its row locks only briefly. */
const PURGE_BATCH = 500;
/** A row's key as this version writes it (LoginAttemptKeys: an HMAC-SHA-256 in hex); any other is a name typed. */
const HMAC_KEY = /^[0-9a-f]{64}$/;

/**
 * Lockout counters in the database, shared by every replica. Each step is one conditional
 * statement, atomic on MySQL, MariaDB and SQLite alike: a claim increments `failures` only while
 * the account is unlocked and under the threshold, so parallel guesses cannot overshoot it.
 *
 * Plain SQL, written once: a sign-in runs these on every attempt, and TypeORM's query builder
 * (and the exception of a duplicate insert) cost more than the statements themselves.
 */
export class TypeOrmLoginAttempts implements LoginAttempts {
  /**
   * The password step's claim, one statement whether the row exists or not: it creates the row at a count of 1, or
   * counts one more while the account is unlocked and under the threshold, or changes nothing. It answers the count
   * it made: MySQL and MariaDB through LAST_INSERT_ID(expr), which the statement's OK packet carries (`insertId`;
   * every branch sets it, 0 when nothing was claimed); SQLite through RETURNING (no row when the update's condition
   * failed).
   */
  private readonly claimSql: string;
  /** A claim of an account whose row an earlier claim made (ClaimOptions.claimedBefore): the update alone. */
  private readonly reclaimSql: string;
  /**
   * claimSucceeded when the row may be missing, one statement as the claim's upsert: it creates the row at 0, or
   * starts the counters over while the account is unlocked and under the threshold, or changes nothing; LAST_INSERT_ID
   * 1 or 0 tells which (RETURNING on SQLite). MySQL assigns left to right, each later IF seeing the columns set before
   * it: `locked_until` goes first and is set only where the condition held, so the condition reads the same for the
   * two after it (and the same again where MariaDB assigns simultaneously).
   */
  private readonly claimSucceededUpsertSql: string;
  private readonly mysql: boolean;
  /** The row of an account: never the name as typed. */
  private readonly keys: LoginAttemptKeys;
  /**
   * A success's change, and the sign-in ticket it completes used up (`tickets_used_through`, when one is given) where
   * no ticket issued then or later was: TICKET_UNUSED, whose two parameters are the ticket's issue time (null: none).
   * Rows matched, not changed, are answered: mysql2 connects with FOUND_ROWS.
   */
  private readonly succeededSql =
    `UPDATE login_attempts SET failures = 0, locked_until = NULL, lockouts = 0, factor_failures = 0, ${TICKET_USED} WHERE username_key = ? AND ${TICKET_UNUSED}`;
  /**
   * MySQL and MariaDB: claimSucceededSql and a right code's time step used (MfaStore.useTimeStep's condition) in one
   * multi-table statement, both rows or neither (rows matched: 2).
   */
  private readonly claimWithStepSql =
    'UPDATE login_attempts a, mfa_factors f SET a.failures = 0, a.locked_until = NULL, a.lockouts = 0, a.factor_failures = 0, ' +
    'a.tickets_used_through = COALESCE(?, a.tickets_used_through), f.last_used_step = ? ' +
    'WHERE a.username_key = ? AND a.failures < ? AND (a.locked_until IS NULL OR a.locked_until <= ?) ' +
    'AND (? IS NULL OR a.tickets_used_through IS NULL OR a.tickets_used_through < ?) ' +
    'AND f.id = ? AND (f.last_used_step IS NULL OR f.last_used_step < ?)';
  /** The claim's condition and the ticket's, the success's change. */
  private readonly claimSucceededSql =
    `UPDATE login_attempts SET failures = 0, locked_until = NULL, lockouts = 0, factor_failures = 0, ${TICKET_USED} ` +
    `WHERE username_key = ? AND failures < ? AND (locked_until IS NULL OR locked_until <= ?) AND ${TICKET_UNUSED}`;
  private readonly readSql = 'SELECT failures, lockouts FROM login_attempts WHERE username_key = ?';
  private readonly lockSql =
    'UPDATE login_attempts SET failures = 0, locked_until = ?, lockouts = lockouts + 1 WHERE username_key = ? AND failures >= ?';
  private lockedUntilColumn: ColumnMetadata | undefined;
  private readonly dataSource: DataSource;
  private readonly sqliteWriteQueue: SqliteWriteQueue;
  /** The purge of idle counters, after a claim every `purgeEveryMs` (10 minutes). */
  private readonly purge: PeriodicPurge;
  /**
   * The rows the purge may delete: no claim since the cutoff (the first parameter), no lock running at `now` (the
   * second), no refused second-factor code kept (only a success starts those over), and no sign-in ticket used up
   * after the cutoff (the third, in the tickets' microseconds), so a ticket used then stays used however long it lives.
   */
  private readonly idleCondition =
    'last_claim_at <= ? AND (locked_until IS NULL OR locked_until <= ?) AND factor_failures = 0 AND (tickets_used_through IS NULL OR tickets_used_through < ?)';

  constructor(deps: TypeOrmLoginAttemptsDeps) {
    const { dataSource } = deps;
    this.keys = deps.loginAttemptKeys;
    this.dataSource = dataSource;
    this.sqliteWriteQueue = deps.sqliteWriteQueue;
    this.purge = new PeriodicPurge(deps.purgeEveryMs ?? 600_000, deps.onPurgeFailed);
    this.mysql = isMysqlFamily(dataSource);
    const unlocked = 'failures < ? AND (locked_until IS NULL OR locked_until <= ?)';
    const columns = 'INSERT INTO login_attempts (username_key, factor_failures, last_claim_at, failures, locked_until, lockouts)';
    // `factor_failures` counts a refused second-factor code (its parameter 1; 0 for any other claim), only where the
    // claim counts, and `last_claim_at` is the claim's time (the purge's clock). MySQL assigns left to right, each IF
    // seeing the columns set before it: both go before `failures`, so their conditions read the counters as the
    // claim's own does.
    this.claimSql = this.mysql
      ? `${columns} VALUES (?, ?, ?, LAST_INSERT_ID(1), NULL, 0) ` +
        `ON DUPLICATE KEY UPDATE factor_failures = IF(${unlocked}, factor_failures + ?, factor_failures), ` +
        `last_claim_at = IF(${unlocked}, ?, last_claim_at), ` +
        `failures = IF(${unlocked}, LAST_INSERT_ID(failures + 1), failures + LAST_INSERT_ID(0))`
      : `${columns} VALUES (?, ?, ?, 1, NULL, 0) ON CONFLICT (username_key) DO UPDATE SET failures = failures + 1, ` +
        `factor_failures = factor_failures + excluded.factor_failures, last_claim_at = excluded.last_claim_at WHERE ${unlocked} RETURNING failures`;
    this.reclaimSql = this.mysql
      ? `UPDATE login_attempts SET factor_failures = factor_failures + ?, last_claim_at = ?, failures = LAST_INSERT_ID(failures + 1) WHERE username_key = ? AND ${unlocked}`
      : `UPDATE login_attempts SET factor_failures = factor_failures + ?, last_claim_at = ?, failures = failures + 1 WHERE username_key = ? AND ${unlocked} RETURNING failures`;
    // The ticket's column is assigned last: MySQL's IFs read the columns set before them, and the condition reads the
    // same after the three before it (failures 0, unlocked) as before them, but not after the ticket's own.
    const withTicket = `${unlocked} AND ${TICKET_UNUSED}`;
    const upsertColumns = 'INSERT INTO login_attempts (username_key, last_claim_at, failures, locked_until, lockouts, tickets_used_through)';
    this.claimSucceededUpsertSql = this.mysql
      ? `${upsertColumns} VALUES (?, ?, LAST_INSERT_ID(1) - 1, NULL, 0, ?) ON DUPLICATE KEY UPDATE locked_until = IF(${withTicket}, NULL, locked_until), ` +
        `lockouts = IF(${withTicket}, 0, lockouts), factor_failures = IF(${withTicket}, 0, factor_failures), ` +
        `failures = IF(${withTicket}, LAST_INSERT_ID(1) - 1, failures + LAST_INSERT_ID(0)), ` +
        `tickets_used_through = IF(${withTicket}, COALESCE(?, tickets_used_through), tickets_used_through)`
      : `${upsertColumns} VALUES (?, ?, 0, NULL, 0, ?) ON CONFLICT (username_key) DO UPDATE SET failures = 0, locked_until = NULL, lockouts = 0, factor_failures = 0, ${TICKET_USED} ` +
        `WHERE ${withTicket} RETURNING 1 AS failures`;
  }

  /**
   * One statement: the upsert when the row may be missing (the password step: the same statement whether the name
   * was tried before or not, so its time tells nothing), the update alone when an earlier claim made it.
   */
  async claim(account: string, now: Date, policy: LockoutPolicy, options: ClaimOptions = {}): Promise<number | false> {
    const accountKey = this.keys.of(account);
    const factorFailure = options.factorFailure ? 1 : 0;
    const at = this.datetime(now);
    const condition = [policy.threshold, at];
    this.purge.runIfDue(now.getTime(), () => this.purgeIdle(now, policy));
    if (options.claimedBefore) {
      const claimed = await this.counted(this.reclaimSql, [factorFailure, at, accountKey, ...condition], false);
      if (claimed !== false) return claimed;
    }
    const upsert = this.mysql
      ? [accountKey, factorFailure, at, ...condition, factorFailure, ...condition, at, ...condition]
      : [accountKey, factorFailure, at, ...condition];
    return this.counted(this.claimSql, upsert, true);
  }

  async claimSucceeded(account: string, now: Date, policy: LockoutPolicy, options: ClaimOptions = {}): Promise<boolean | 'step_used'> {
    const accountKey = this.keys.of(account);
    const ticket = options.ticketIssuedAt ?? null;
    const condition = [policy.threshold, this.datetime(now), ticket, ticket];
    const step = options.timeStep;
    // The time step, once the claim stands: used, or taken already.
    const useStep = async (): Promise<true | 'step_used'> =>
      !step || (await this.sqliteWriteQueue.serialize(() => mfaSignInStatementsOf(this.dataSource).useTimeStep(this.dataSource.manager, step.factorId, step.step)))
        ? true
        : 'step_used';
    // Counters made by an earlier claim: the update alone (with the time step where one statement can write both);
    // the upsert only when it changed nothing (gone, locked, or the step taken). Refused, that is two statements, as a
    // claim's refusal is: while locked, a right code and a wrong one (which claims) do the same work.
    if (options.claimedBefore) {
      if (step && this.mysql) {
        if ((await this.run(this.claimWithStepSql, [ticket, step.step, accountKey, ...condition, step.factorId, step.step])) > 0) return true;
      } else if ((await this.run(this.claimSucceededSql, [ticket, accountKey, ...condition])) > 0) return useStep();
    }
    // MySQL's upsert names the condition in each of its five assignments, SQLite's once.
    const at = this.datetime(now);
    const upsert = this.mysql
      ? [accountKey, at, ticket, ...condition, ...condition, ...condition, ...condition, ...condition, ticket]
      : [accountKey, at, ticket, ticket, ...condition];
    return (await this.counted(this.claimSucceededUpsertSql, upsert, true)) === false ? false : useStep();
  }

  /**
   * A claim statement: what it counted (the failures, or 1 for claimSucceeded's upsert), or false when it claimed
   * nothing. `upsert`: an INSERT that sets LAST_INSERT_ID in every branch (0: nothing claimed; a row it left unchanged
   * still counts as matched, mysql2 connecting with FOUND_ROWS); an UPDATE sets it only when it matched a row.
   */
  private counted(sql: string, parameters: unknown[], upsert: boolean): Promise<number | false> {
    return this.sqliteWriteQueue.serialize(async () => {
      const runner = this.dataSource.createQueryRunner();
      try {
        // One statement, rolled back whole when InnoDB ends it as a deadlock's victim (the purge deleting the same
        // row): run again, it counts exactly once.
        const result = await retryDeadlocks(() => runner.query(sql, parameters, true));
        if (this.mysql) {
          const insertId = Number((result.raw as { insertId: number | string }).insertId);
          return upsert ? insertId || false : (result.affected ?? 0) > 0 ? insertId : false;
        }
        const [row] = (result.records ?? []) as { failures: number | string }[];
        return row ? Number(row.failures) : false;
      } finally {
        await runner.release();
      }
    });
  }

  async failed(account: string, now: Date, policy: LockoutPolicy, audit?: (lockedUntil: Date | null) => AuditEntry[], claimed?: number): Promise<void> {
    const accountKey = this.keys.of(account);
    // Only a spent allowance locks. A claim below the threshold did not spend it; without a count (a refusal while
    // locked, or a test of a spent allowance) the counters say, read first: a locked account's refusals, which
    // repeat as fast as someone guesses, then cost the read and the entries, not a transaction each.
    const mayLock = claimed === undefined ? await this.spent(accountKey, policy) : claimed >= policy.threshold;
    if (!mayLock) {
      // Nothing to lock, so nothing to commit with: the entries commit alone (one statement). Should the allowance be
      // spent meanwhile, the claim that spent it answered the threshold and its own failure locks.
      const entries = audit?.(null) ?? [];
      if (entries.length > 0) await this.sqliteWriteQueue.serialize(() => insertAuditEntries(this.dataSource.manager, entries));
      return;
    }
    // One transaction: the refusal's audit entries commit with the counters they describe.
    await this.sqliteWriteQueue.serialize(() =>
      this.dataSource.transaction(async (manager) => {
        const [row] = (await manager.query(this.readSql, [accountKey])) as { failures: number | string; lockouts: number | string }[];
        let locked: Date | null = null;
        if (row && Number(row.failures) >= policy.threshold) {
          const lockedUntil = new Date(now.getTime() + lockoutWaitSeconds(policy, Number(row.lockouts)) * 1000);
          // Only one of the attempts that saw the allowance spent locks the account: the lock resets `failures`.
          const result = await manager.queryRunner!.query(this.lockSql, [this.datetime(lockedUntil), accountKey, policy.threshold], true);
          if ((result.affected ?? 0) > 0) locked = lockedUntil;
        }
        if (audit) await insertAuditEntries(manager, audit(locked));
      }),
    );
  }

  /** Whether the account's allowance is spent (its counters at the threshold or above), read outside any transaction. */
  private async spent(accountKey: string, policy: LockoutPolicy): Promise<boolean> {
    const [row] = (await this.sqliteWriteQueue.serialize(() => this.dataSource.query(this.readSql, [accountKey]))) as { failures: number | string }[];
    return row !== undefined && Number(row.failures) >= policy.threshold;
  }

  async succeeded(account: string, options: { ticketIssuedAt?: number } = {}): Promise<boolean> {
    const ticket = options.ticketIssuedAt ?? null;
    const matched = await this.run(this.succeededSql, [ticket, this.keys.of(account), ticket, ticket]);
    return ticket === null || matched > 0;
  }

  /** Runs one statement alone on the connection (SQLite) and answers the rows it changed. */
  private run(sql: string, parameters: unknown[]): Promise<number> {
    return this.sqliteWriteQueue.serialize(async () => {
      const runner = this.dataSource.createQueryRunner();
      try {
        return (await retryDeadlocks(() => runner.query(sql, parameters, true))).affected ?? 0;
      } finally {
        await runner.release();
      }
    });
  }

  /**
   * Deletes the counters idle at `now` under `policy` (loginAttemptsIdleSeconds; idleCondition), a batch at a time;
   * answers how many went. A name tried once is then as if never tried; an account's counters start over as a
   * success would start them, which, that long after its last claim, gives a guesser nothing (lockout-policy.ts).
   */
  async purgeIdle(now: Date, policy: LockoutPolicy): Promise<number> {
    await this.stampUnclaimed(now);
    const cutoff = new Date(now.getTime() - loginAttemptsIdleSeconds(policy) * 1000);
    const condition = [this.datetime(cutoff), this.datetime(now), cutoff.getTime() * 1000];
    let deleted = 0;
    for (;;) {
      // Read without locks, then deleted by primary key with the condition again: the delete locks those rows only,
      // and a row claimed in between stays.
      const rows = (await this.sqliteWriteQueue.serialize(() =>
        this.dataSource.query(`SELECT username_key FROM login_attempts WHERE ${this.idleCondition} LIMIT ${PURGE_BATCH}`, condition),
      )) as { username_key: string }[];
      if (rows.length === 0) return deleted;
      const keys = rows.map((row) => row.username_key);
      deleted += await this.run(
        `DELETE FROM login_attempts WHERE username_key IN (${keys.map(() => '?').join(', ')}) AND ${this.idleCondition}`,
        [...keys, ...condition],
      );
      if (rows.length < PURGE_BATCH) return deleted;
    }
  }

  /**
   * Gives the rows without a claim time (made before migration 1766600000000, or by a replica of that version during a
   * rolling upgrade) `now`, a batch at a time, so they are forgotten once idle from then: read without locks, then
   * stamped by key where still unstamped (a claim in between stamped it itself). A row keyed by the name typed, not
   * by its HMAC (a replica from before migration 1766300000000 writes them while it runs: in a rolling update, or
   * through a rollback), is deleted instead, unless locked now: the name may be a password typed as one, and nothing
   * of this version reads it (rollback review of 2026-12-07: such rows waited a day for the purge).
   */
  private async stampUnclaimed(now: Date): Promise<void> {
    const at = this.datetime(now);
    for (;;) {
      const rows = (await this.sqliteWriteQueue.serialize(() =>
        this.dataSource.query(`SELECT username_key FROM login_attempts WHERE last_claim_at IS NULL LIMIT ${PURGE_BATCH}`),
      )) as { username_key: string }[];
      if (rows.length === 0) return;
      const keys = rows.map((row) => row.username_key);
      const named = keys.filter((key) => !HMAC_KEY.test(key));
      if (named.length > 0) {
        await this.run(
          `DELETE FROM login_attempts WHERE username_key IN (${named.map(() => '?').join(', ')}) AND last_claim_at IS NULL AND (locked_until IS NULL OR locked_until <= ?)`,
          [...named, at],
        );
      }
      await this.run(`UPDATE login_attempts SET last_claim_at = ? WHERE username_key IN (${keys.map(() => '?').join(', ')}) AND last_claim_at IS NULL`, [at, ...keys]);
      if (rows.length < PURGE_BATCH) return;
    }
  }

  /** A datetime parameter in the form the driver stores (a Date for mysql2, UTC text for SQLite). */
  private datetime(value: Date): unknown {
    this.lockedUntilColumn ??= this.dataSource.getMetadata(LoginAttemptSchema).findColumnWithPropertyName('lockedUntil')!;
    return this.dataSource.driver.preparePersistentValue(value, this.lockedUntilColumn);
  }
}

/**
 * A success's use of its sign-in ticket (ClaimOptions.ticketIssuedAt): its issue time becomes the account's
 * `tickets_used_through`, or nothing changes when none is given (the parameter null).
 */
const TICKET_USED = 'tickets_used_through = COALESCE(?, tickets_used_through)';
/** No ticket given (both parameters null), or none of the account's issued then or later used yet. */
const TICKET_UNUSED = '(? IS NULL OR tickets_used_through IS NULL OR tickets_used_through < ?)';
