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
