/**
 * The one retry policy for work InnoDB may end as a deadlock's victim (MySQL and MariaDB roll the
 * victim's whole transaction back, "try restarting transaction"): nothing of it was written, so it
 * runs again, a few times, before the caller sees the error. Only deadlocks: a lock-wait timeout
 * rolls back the statement alone (innodb_rollback_on_timeout is off by default), so running a
 * transaction's closure again after one would repeat what the first attempt already wrote.
 * SQLite takes turns on one connection (SqliteWriteQueue) and never deadlocks.
 */
export interface DeadlockRetryPolicy {
  /** Runs in all, the first one included. */
  attempts: number;
  /** The wait after failed attempt n (1-based) is `stepMs * n` plus up to `jitterMs` at random. */
  stepMs: number;
  /** Two victims of one deadlock that came back in step would meet again: each waits its own while. */
  jitterMs: number;
}

export const DEADLOCK_RETRY: DeadlockRetryPolicy = { attempts: 3, stepMs: 5, jitterMs: 10 };

/** MySQL's and MariaDB's ER_LOCK_DEADLOCK (1213), thrown by mysql2 or wrapped in TypeORM's QueryFailedError. */
export function isDeadlock(error: unknown): boolean {
  const outer = error as { code?: unknown; errno?: unknown; driverError?: unknown } | null | undefined;
  const inner = (outer?.driverError ?? outer) as { code?: unknown; errno?: unknown } | null | undefined;
  return inner?.code === 'ER_LOCK_DEADLOCK' || inner?.errno === 1213 || outer?.code === 'ER_LOCK_DEADLOCK';
}

/** The wait after failed attempt `attempt` (1-based) under `policy`. */
export function deadlockRetryDelay(attempt: number, policy: DeadlockRetryPolicy = DEADLOCK_RETRY): number {
  return policy.stepMs * attempt + Math.floor(Math.random() * policy.jitterMs);
}

/**
 * Runs `work`, and again after a deadlock, at most `policy.attempts` times in all; any other error,
 * or the last attempt's deadlock, reaches the caller. Each attempt must build everything it writes
 * inside `work`: an aggregate built outside would hand its events over to the first attempt only.
 * `pause` waits between attempts (tests pass one that only records the delay).
 */
export async function retryDeadlocks<T>(
  work: () => Promise<T>,
  policy: DeadlockRetryPolicy = DEADLOCK_RETRY,
  pause: (ms: number) => Promise<void> = sleep,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!isDeadlock(error) || attempt >= policy.attempts) throw error;
      await pause(deadlockRetryDelay(attempt, policy));
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
