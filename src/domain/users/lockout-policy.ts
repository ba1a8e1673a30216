/**
 * Per-account lockout: after `threshold` failed sign-ins the account is locked for a wait that
 * doubles with each consecutive lockout, from `baseWaitSeconds` up to `maxWaitSeconds`, so a lock
 * never lasts longer than the maximum and the owner always gets back in after it.
 */
export interface LockoutPolicy {
  readonly threshold: number;
  readonly baseWaitSeconds: number;
  readonly maxWaitSeconds: number;
  /**
   * Refused second-factor codes, on tickets of a right password, after which the second step refuses every code
   * until the account next succeeds (a password reset does): a lock's wait ends, this does not. NIST SP 800-63B
   * §5.2.2 caps consecutive failed attempts at 100. Absent: SECOND_FACTOR_FAILURE_LIMIT.
   */
  readonly secondFactorFailureLimit?: number;
}

export const SECOND_FACTOR_FAILURE_LIMIT = 100;

/**
 * Whether the account's second step is closed: someone who has its password has had this many codes refused since
 * its last success, so the password is known to them, and the owner must reset it.
 */
export function secondFactorClosed(policy: LockoutPolicy, refusedCodes: number): boolean {
  return refusedCodes >= (policy.secondFactorFailureLimit ?? SECOND_FACTOR_FAILURE_LIMIT);
}

/** How long the account stays locked when it is locked for the (previousLockouts + 1)-th time in a row. */
export function lockoutWaitSeconds(policy: LockoutPolicy, previousLockouts: number): number {
  const doublings = Math.min(Math.max(previousLockouts, 0), 40);
  return Math.min(policy.baseWaitSeconds * 2 ** doublings, policy.maxWaitSeconds);
}

/** The shortest idle time loginAttemptsIdleSeconds answers: a day. */
export const LOGIN_ATTEMPTS_MIN_IDLE_SECONDS = 86_400;

/**
 * How long an account's counters must have gone without a claim before they may be forgotten (the row deleted, as if
 * the name had never been tried), when nothing else keeps them (no lock running, no refused second-factor code). Long
 * enough that forgetting never speeds a guesser up: from fresh counters, the guesses allowed before the wait reaches
 * its maximum are `threshold` per lock, one lock per doubling and one more, and each lock's wait is at most
 * `maxWaitSeconds`; a guesser who waits out this idle time to start over gets no more guesses per second than one who
 * keeps guessing at the longest lock. A day at least, which with the defaults (30, 1m, 15m) is 19 times that bound.
 */
export function loginAttemptsIdleSeconds(policy: LockoutPolicy): number {
  const doublings = Math.min(Math.ceil(Math.log2(Math.max(policy.maxWaitSeconds / Math.max(policy.baseWaitSeconds, 1), 1))), 40);
  return Math.max(LOGIN_ATTEMPTS_MIN_IDLE_SECONDS, (doublings + 1) * policy.maxWaitSeconds);
}
