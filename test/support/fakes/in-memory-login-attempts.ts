import type { ClaimOptions, LoginAttempts } from '../../../src/application/ports/login-attempts.port';
import type { MfaStore } from '../../../src/application/ports/mfa-store.port';
import type { AuditEntry } from '../../../src/domain/audit/audit-entry';
import type { InMemoryAuditTrail } from './in-memory-audit-trail';
import { type LockoutPolicy, lockoutWaitSeconds } from '../../../src/domain/users/lockout-policy';
import { ioBoundary } from './io-boundary';

interface Counters {
  failures: number;
  lockedUntil: Date | null;
  lockouts: number;
  /** The issue time up to which the account's sign-in tickets are used up (ClaimOptions.ticketIssuedAt). */
  ticketsUsedThrough: number | null;
  /** Second-factor codes refused on right-password tickets since the last success (ClaimOptions.factorFailure): a lock keeps them. */
  factorFailures: number;
}

/**
 * Lockout counters in memory, with the adapter's semantics: each call reads and writes its row in
 * one synchronous step after the I/O boundary, as one conditional UPDATE is atomic in the database.
 */
export class InMemoryLoginAttempts implements LoginAttempts {
  private readonly rows = new Map<string, Counters>();

  /**
   * `audit`: where the entries a failure hands over are written (with the counters, as the adapter's transaction does).
   * `factors`: where a right code's time step is used (ClaimOptions.timeStep; the adapter writes mfa_factors), asked
   * when needed (the MFA store's fake reads these counters in turn).
   */
  constructor(
    private readonly audit?: InMemoryAuditTrail,
    private readonly factors?: () => Pick<MfaStore, 'useTimeStep'>,
  ) {}

  async claim(accountKey: string, now: Date, policy: LockoutPolicy, options: ClaimOptions = {}): Promise<number | false> {
    await ioBoundary();
    const row = this.row(accountKey);
    if (row.failures >= policy.threshold || (row.lockedUntil !== null && row.lockedUntil > now)) return false;
    row.failures += 1;
    if (options.factorFailure) row.factorFailures += 1;
    return row.failures;
  }

  async claimSucceeded(accountKey: string, now: Date, policy: LockoutPolicy, options: ClaimOptions = {}): Promise<boolean | 'step_used'> {
    await ioBoundary();
    const row = this.row(accountKey);
    if (row.failures >= policy.threshold || (row.lockedUntil !== null && row.lockedUntil > now)) return false;
    if (!this.startOver(row, options.ticketIssuedAt)) return false;
    const step = options.timeStep;
    if (!step) return true;
    const factors = this.factors?.();
    if (!factors) throw new Error('InMemoryLoginAttempts: a time step to use, but no factors to use it in');
    return (await factors.useTimeStep(step.factorId, step.step)) ? true : 'step_used';
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

  async succeeded(accountKey: string, options: { ticketIssuedAt?: number } = {}): Promise<boolean> {
    await ioBoundary();
    return this.startOver(this.row(accountKey), options.ticketIssuedAt);
  }

  /** For assertions (synchronous: not part of the port): the counters, without the tickets' use (ticketsUsedThrough). */
  counters(accountKey: string): Readonly<Omit<Counters, 'ticketsUsedThrough' | 'factorFailures'>> {
    const { failures, lockedUntil, lockouts } = this.row(accountKey);
    return { failures, lockedUntil, lockouts };
  }

  /** What the adapter's ticket read finds in login_attempts (InMemoryMfaStore's `ticketUses`). */
  ticketsUsedThrough(accountKey: string): number | null {
    return this.rows.get(accountKey)?.ticketsUsedThrough ?? null;
  }

  /** The same read's count of refused second-factor codes. */
  factorFailures(accountKey: string): number {
    return this.rows.get(accountKey)?.factorFailures ?? 0;
  }

  /** The counters start over and the ticket, when given, is used up; false, changing nothing, when it was already. */
  private startOver(row: Counters, ticketIssuedAt: number | undefined): boolean {
    if (ticketIssuedAt !== undefined && row.ticketsUsedThrough !== null && row.ticketsUsedThrough >= ticketIssuedAt) return false;
    Object.assign(row, { failures: 0, lockedUntil: null, lockouts: 0, factorFailures: 0, ticketsUsedThrough: ticketIssuedAt ?? row.ticketsUsedThrough });
    return true;
  }

  private row(accountKey: string): Counters {
    let row = this.rows.get(accountKey);
    if (!row) {
      row = { failures: 0, lockedUntil: null, lockouts: 0, ticketsUsedThrough: null, factorFailures: 0 };
      this.rows.set(accountKey, row);
    }
    return row;
  }
}
