/**
 * Per-account lockout: after `threshold` failed sign-ins the account is locked for a wait that
 * doubles with each consecutive lockout, from `baseWaitSeconds` up to `maxWaitSeconds`, so a lock
 * never lasts longer than the maximum and the owner always gets back in after it.
 */
export interface LockoutPolicy {
  readonly threshold: number;
  readonly baseWaitSeconds: number;
  readonly maxWaitSeconds: number;
}

/** How long the account stays locked when it is locked for the (previousLockouts + 1)-th time in a row. */
export function lockoutWaitSeconds(policy: LockoutPolicy, previousLockouts: number): number {
  const doublings = Math.min(Math.max(previousLockouts, 0), 40);
  return Math.min(policy.baseWaitSeconds * 2 ** doublings, policy.maxWaitSeconds);
}
