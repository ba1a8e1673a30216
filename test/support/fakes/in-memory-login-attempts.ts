import type { LoginAttempts } from '../../../src/application/ports/login-attempts.port';
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

  async claim(accountKey: string, now: Date, policy: LockoutPolicy): Promise<boolean> {
    await ioBoundary();
    const row = this.row(accountKey);
    if (row.failures >= policy.threshold || (row.lockedUntil !== null && row.lockedUntil > now)) return false;
    row.failures += 1;
    return true;
  }

  async failed(accountKey: string, now: Date, policy: LockoutPolicy): Promise<void> {
    await ioBoundary();
    const row = this.row(accountKey);
    if (row.failures < policy.threshold) return;
    row.lockedUntil = new Date(now.getTime() + lockoutWaitSeconds(policy, row.lockouts) * 1000);
    row.lockouts += 1;
    row.failures = 0;
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
