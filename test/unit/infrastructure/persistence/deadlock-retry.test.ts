import { QueryFailedError } from 'typeorm';
import {
  DEADLOCK_RETRY,
  deadlockRetryDelay,
  isDeadlock,
  retryDeadlocks,
} from '../../../../src/infrastructure/persistence/typeorm/deadlock-retry';

/** What mysql2 throws for InnoDB's deadlock, and TypeORM's wrapper around it. */
function driverDeadlock(): Error {
  return Object.assign(new Error('Deadlock found when trying to get lock; try restarting transaction'), {
    code: 'ER_LOCK_DEADLOCK',
    errno: 1213,
    sqlState: '40001',
  });
}
function queryFailedDeadlock(): QueryFailedError {
  return new QueryFailedError('UPDATE refresh_tokens SET used_at = ?', [], driverDeadlock());
}

/** Fails with the given errors, in order, then answers 'done'; counts its runs. */
function failingWith(...errors: unknown[]) {
  const work = jest.fn(() => {
    const next = errors.shift();
    return next === undefined ? Promise.resolve('done') : Promise.reject(next);
  });
  return work;
}

describe('isDeadlock', () => {
  it('knows ER_LOCK_DEADLOCK from mysql2, inside a QueryFailedError, and by errno 1213 alone', () => {
    expect(isDeadlock(driverDeadlock())).toBe(true);
    expect(isDeadlock(queryFailedDeadlock())).toBe(true);
    expect(isDeadlock(Object.assign(new Error('x'), { driverError: { code: 'ER_LOCK_DEADLOCK' } }))).toBe(true);
    expect(isDeadlock(Object.assign(new Error('x'), { errno: 1213 }))).toBe(true);
  });

  it('is false for other errors, lock-wait timeouts included, and for anything that is no error', () => {
    expect(isDeadlock(Object.assign(new Error('Lock wait timeout exceeded'), { code: 'ER_LOCK_WAIT_TIMEOUT', errno: 1205 }))).toBe(false);
    expect(isDeadlock(Object.assign(new Error('dup'), { code: 'ER_DUP_ENTRY', errno: 1062 }))).toBe(false);
    expect(isDeadlock(Object.assign(new Error('busy'), { code: 'SQLITE_BUSY' }))).toBe(false);
    expect(isDeadlock(new Error('Deadlock found when trying to get lock'))).toBe(false);
    expect(isDeadlock(undefined)).toBe(false);
    expect(isDeadlock(null)).toBe(false);
    expect(isDeadlock('ER_LOCK_DEADLOCK')).toBe(false);
  });
});

describe('retryDeadlocks', () => {
  it('runs the work again after a deadlock and answers what the next attempt answers', async () => {
    const waits: number[] = [];
    const work = failingWith(queryFailedDeadlock(), driverDeadlock());

    await expect(retryDeadlocks(work, DEADLOCK_RETRY, async (ms) => void waits.push(ms))).resolves.toBe('done');

    expect(work).toHaveBeenCalledTimes(3);
    expect(waits).toHaveLength(2);
  });

  it('gives up after the policy’s attempts and throws the last deadlock', async () => {
    const last = driverDeadlock();
    const work = failingWith(driverDeadlock(), driverDeadlock(), driverDeadlock(), last);

    await expect(retryDeadlocks(work, { attempts: 4, stepMs: 0, jitterMs: 0 }, async () => undefined)).rejects.toBe(last);

    expect(work).toHaveBeenCalledTimes(4);
  });

  it('does not run the work again after any other error', async () => {
    const timeout = Object.assign(new Error('Lock wait timeout exceeded'), { code: 'ER_LOCK_WAIT_TIMEOUT', errno: 1205 });
    const pause = jest.fn(async () => undefined);
    const work = failingWith(timeout);

    await expect(retryDeadlocks(work, DEADLOCK_RETRY, pause)).rejects.toBe(timeout);

    expect(work).toHaveBeenCalledTimes(1);
    expect(pause).not.toHaveBeenCalled();
  });

  it('runs the work once when it succeeds', async () => {
    const work = failingWith();
    await expect(retryDeadlocks(work)).resolves.toBe('done');
    expect(work).toHaveBeenCalledTimes(1);
  });

  describe('by default', () => {
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    it('waits on a timer between attempts, at least one step and less than a step plus the jitter', async () => {
      const work = failingWith(driverDeadlock());
      const outcome = retryDeadlocks(work, { attempts: 2, stepMs: 20, jitterMs: 10 });

      await jest.advanceTimersByTimeAsync(19);
      expect(work).toHaveBeenCalledTimes(1);
      await jest.advanceTimersByTimeAsync(10);
      expect(work).toHaveBeenCalledTimes(2);
      await expect(outcome).resolves.toBe('done');
    });
  });
});

describe('deadlockRetryDelay', () => {
  it('grows by a step per attempt, plus a jitter below jitterMs', () => {
    const policy = { attempts: 5, stepMs: 5, jitterMs: 10 };
    for (let i = 0; i < 200; i++) {
      const first = deadlockRetryDelay(1, policy);
      const third = deadlockRetryDelay(3, policy);
      expect(first).toBeGreaterThanOrEqual(5);
      expect(first).toBeLessThan(15);
      expect(third).toBeGreaterThanOrEqual(15);
      expect(third).toBeLessThan(25);
      expect(Number.isInteger(first)).toBe(true);
    }
  });

  it('spreads the waits of two victims (not every draw the same)', () => {
    const draws = new Set(Array.from({ length: 100 }, () => deadlockRetryDelay(1)));
    expect(draws.size).toBeGreaterThan(1);
  });
});
