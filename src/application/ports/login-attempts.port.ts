import type { AuditEntry } from '../../domain/audit/audit-entry';
import type { LockoutPolicy } from '../../domain/users/lockout-policy';

/**
 * Failed sign-in counters per account, shared by every replica. Each call is atomic on its own,
 * so parallel attempts never lose an update and never evaluate more passwords than allowed.
 */
export interface LoginAttempts {
  /**
   * Claims one password evaluation for the account (counted as a failure until `succeeded`):
   * false, claiming nothing, while it is locked or its allowance of `policy.threshold` is spent.
   */
  claim(accountKey: string, now: Date, policy: LockoutPolicy): Promise<boolean>;
  /**
   * After a failed evaluation: locks the account once its allowance is spent, for the growing wait.
   * `audit` is asked for the entries of the refusal (and of the lock, when this call locked the account:
   * `lockedUntil` set); they commit with the counters, in the same transaction.
   */
  failed(accountKey: string, now: Date, policy: LockoutPolicy, audit?: (lockedUntil: Date | null) => AuditEntry[]): Promise<void>;
  /** After a successful evaluation: the counters start over. */
  succeeded(accountKey: string): Promise<void>;
}
