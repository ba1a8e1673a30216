import { LOGIN_ATTEMPTS_MIN_IDLE_SECONDS, loginAttemptsIdleSeconds, lockoutWaitSeconds } from '../../../src/domain/users/lockout-policy';

describe('loginAttemptsIdleSeconds', () => {
  /** Guesses a second of someone who spends fresh counters to the longest lock, then waits `idle` for them to be forgotten. */
  const restartRate = (policy: { threshold: number; baseWaitSeconds: number; maxWaitSeconds: number }, idle: number) => {
    let guesses = 0;
    let seconds = idle;
    for (let lockouts = 0; lockouts <= 41; lockouts++) {
      guesses += policy.threshold;
      const wait = lockoutWaitSeconds(policy, lockouts);
      seconds += wait;
      if (wait >= policy.maxWaitSeconds) break;
    }
    return guesses / seconds;
  };

  it.each([
    { threshold: 30, baseWaitSeconds: 60, maxWaitSeconds: 900 },
    { threshold: 5, baseWaitSeconds: 1, maxWaitSeconds: 86_400 },
    { threshold: 1, baseWaitSeconds: 60, maxWaitSeconds: 60 },
    { threshold: 1_000_000, baseWaitSeconds: 1, maxWaitSeconds: 3 * 86_400 },
  ])('is never shorter than a day, and forgetting after it never guesses faster than the longest lock allows: %o', (policy) => {
    const idle = loginAttemptsIdleSeconds(policy);
    expect(idle).toBeGreaterThanOrEqual(LOGIN_ATTEMPTS_MIN_IDLE_SECONDS);
    expect(restartRate(policy, idle)).toBeLessThanOrEqual(policy.threshold / Math.max(policy.maxWaitSeconds, 1));
  });

  it('grows past a day with the doublings a long LOCKOUT_MAX_WAIT takes', () => {
    expect(loginAttemptsIdleSeconds({ threshold: 3, baseWaitSeconds: 60, maxWaitSeconds: 900 })).toBe(86_400);
    // 60 s doubled 11 times reaches a day: 12 locks at most a day each.
    expect(loginAttemptsIdleSeconds({ threshold: 3, baseWaitSeconds: 60, maxWaitSeconds: 86_400 })).toBe(12 * 86_400);
  });
});
