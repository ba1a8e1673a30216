import type { AuditEntry } from '../../domain/audit/audit-entry';
import type { LockoutPolicy } from '../../domain/users/lockout-policy';

export interface ClaimOptions {
  /**
   * The account was claimed moments ago (a sign-in's second step, after its password step): its counters exist,
   * so the claim can be one statement, making them only if they are gone. The password step never says so: there
   * a claim costs the same whether the name was tried before or not.
   */
  claimedBefore?: boolean;
  /**
   * claimSucceeded only: the sign-in ticket (SignInTickets) this success completes, by its issue time (issuedAtMicros). It is used up
   * with the claim, in the same statement, and every ticket of the account issued up to it with it; the claim is
   * refused, changing nothing, when such a ticket was used already (on any replica).
   */
  ticketIssuedAt?: number;
  /**
   * claimSucceeded only: the right code's time step (a TOTP factor's), used up with the claim where the database can
   * write both in one statement, else right after it, by MfaStore.useTimeStep's rule (only after the factor's last
   * used step). Taken already: the claim stands and claimSucceeded answers `step_used`.
   */
  timeStep?: { factorId: string; step: number };
  /**
   * claim only: this evaluation is a second-factor code refused on a right password's ticket. It is also counted apart
   * (TicketHolder.factorFailures), where a lock does not start it over: only a success does (any success, a password
   * reset's among them). The same statement runs without it (a wrong password's ticket), counting 0.
   */
  factorFailure?: boolean;
}

/**
 * Failed sign-in counters per account, shared by every replica. Each call is atomic on its own,
 * so parallel attempts never lose an update and never evaluate more passwords than allowed.
 */
export interface LoginAttempts {
  /**
   * Claims one password evaluation for the account (counted as a failure until `succeeded`): how many evaluations
   * are counted with this one (1 to `policy.threshold`); false, claiming nothing, while it is locked or its
   * allowance of `policy.threshold` is spent.
   */
  claim(accountKey: string, now: Date, policy: LockoutPolicy, options?: ClaimOptions): Promise<number | false>;
  /**
   * After a failed evaluation: locks the account once its allowance is spent, for the growing wait.
   * `audit` is asked for the entries of the refusal (and of the lock, when this call locked the account:
   * `lockedUntil` set); where the call may lock, they commit with the counters, in the same transaction.
   *
   * `claimed`, the answer of this evaluation's claim: below the threshold, this evaluation did not spend the
   * allowance and cannot lock (the one that did locks, or starts the count over by succeeding), so the counters
   * are not read and the entries are written alone. Without it (a refusal), the counters decide: an allowance
   * not spent (locked already, or counting) writes the entries alone, a spent one locks as at the threshold.
   */
  failed(accountKey: string, now: Date, policy: LockoutPolicy, audit?: (lockedUntil: Date | null) => AuditEntry[], claimed?: number): Promise<void>;
  /**
   * After a successful evaluation: the counters start over. With `ticketIssuedAt` (a second step's recovery code or
   * passkey), the sign-in ticket issued then is used up with them, as claimSucceeded uses it: false, changing
   * nothing, when a ticket of the account issued then or later was used already.
   */
  succeeded(accountKey: string, options?: { ticketIssuedAt?: number }): Promise<boolean>;

  /**
   * An evaluation made before its claim, and right (a TOTP code, checked in memory, where nothing is used up):
   * claims it and starts the counters over in one step; false, changing nothing, where `claim` would refuse
   * (locked, or the allowance spent), or where its ticket (`ticketIssuedAt`) was used. A wrong one claims with
   * `claim`: the same work, so the answer while locked does not tell a right code from a wrong one.
   */
  claimSucceeded(accountKey: string, now: Date, policy: LockoutPolicy, options?: ClaimOptions): Promise<boolean | 'step_used'>;
}
