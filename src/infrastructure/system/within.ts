/**
 * How long a probe of the database (readiness, a metric read at scrape time) waits for its answer before it counts the
 * database as away: under a Kubernetes probe's and Prometheus's default timeouts, and well under the pool's 10 s.
 */
export const DATABASE_PROBE_TIMEOUT_MS = 2_000;

/** A wait that ran out before the work it waited for. */
export class TimedOutError extends Error {
  constructor(what: string, ms: number) {
    super(`${what}: no answer within ${ms} ms`);
    this.name = 'TimedOutError';
  }
}

/**
 * `work`'s outcome, or a TimedOutError once `ms` pass first. The work itself goes on (a query cannot be called back);
 * its late failure is never unhandled, and the timer never outlives the race.
 */
export async function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  work.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimedOutError(what, ms)), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
