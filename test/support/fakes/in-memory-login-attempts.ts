import type { LoginAttempts } from '../../../src/application/ports/login-attempts.port';
import type { AuditEntry } from '../../../src/domain/audit/audit-entry';
import type { InMemoryAuditTrail } from './in-memory-audit-trail';
import { type LockoutPolicy, lockoutWaitSeconds } from '../../../src/domain/users/lockout-policy';
import { ioBoundary } from './io-boundary';

interface Counters {
  failures: number;
  lockedUntil: Date | null;
  lockouts: number;
}

/**
 * Lockout counters in memory, with the adapter's semantics: each call reads and writes its row in
 * one synchronous step after the I/O boundary, as one conditional UPDATE is atomic in the database.
 */
export class InMemoryLoginAttempts implements LoginAttempts {
  private readonly rows = new Map<string, Counters>();

  /** `audit`: where the entries a failure hands over are written (with the counters, as the adapter's transaction does). */
  constructor(private readonly audit?: InMemoryAuditTrail) {}

  async claim(accountKey: string, now: Date, policy: LockoutPolicy): Promise<number | false> {
    await ioBoundary();
    const row = this.row(accountKey);
    if (row.failures >= policy.threshold || (row.lockedUntil !== null && row.lockedUntil > now)) return false;
    row.failures += 1;
    return row.failures;
  }

  async claimSucceeded(accountKey: string, now: Date, policy: LockoutPolicy): Promise<boolean> {
    await ioBoundary();
    const row = this.row(accountKey);
    if (row.failures >= policy.threshold || (row.lockedUntil !== null && row.lockedUntil > now)) return false;
    this.rows.set(accountKey, { failures: 0, lockedUntil: null, lockouts: 0 });
    return true;
  }

  async failed(accountKey: string, now: Date, policy: LockoutPolicy, audit?: (lockedUntil: Date | null) => AuditEntry[], claimed?: number): Promise<void> {
    await ioBoundary();
    const row = this.row(accountKey);
    let locked: Date | null = null;
    // Below the threshold, the claim did not spend the allowance: never a lock (the adapter does not read the counters).
    const mayLock = claimed === undefined || claimed >= policy.threshold;
    if (mayLock && row.failures >= policy.threshold) {
      locked = new Date(now.getTime() + lockoutWaitSeconds(policy, row.lockouts) * 1000);
      row.lockedUntil = locked;
      row.lockouts += 1;
      row.failures = 0;
    }
    const entries = audit?.(locked) ?? [];
    if (entries.length > 0 && this.audit) await this.audit.record(entries);
  }

  async succeeded(accountKey: string): Promise<void> {
    await ioBoundary();
    this.rows.set(accountKey, { failures: 0, lockedUntil: null, lockouts: 0 });
  }

  /** For assertions (synchronous: not part of the port). */
  counters(accountKey: string): Readonly<Counters> {
    return { ...this.row(accountKey) };
  }

  private row(accountKey: string): Counters {
    let row = this.rows.get(accountKey);
    if (!row) {
      row = { failures: 0, lockedUntil: null, lockouts: 0 };
      this.rows.set(accountKey, row);
    }
    return row;
  }
}
