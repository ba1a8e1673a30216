import type { DataSource } from 'typeorm';

/**
 * The number of users, for the user list's pagination, without a COUNT(*) per request.
 *
 * Freshness: the total is recounted when it is older than USER_TOTAL_TTL_MS (the stale value is
 * served while the recount runs, so no request waits for it). Users this process adds or removes
 * move the total at once when their write commits (`adjust`), without a recount, so an invite
 * does not make the next list count a million rows; only when a recount is in flight (it may or may
 * not see the change) is the total dropped instead, and the next list waits for an exact count.
 * Users added or removed by another process (another replica, a bulk import) show in the total
 * after at most USER_TOTAL_TTL_MS plus one count.
 */
export const USER_TOTAL_TTL_MS = 5000;

class UserTotal {
  private value: number | null = null;
  private countedAt = 0;
  private generation = 0;
  private counting: { promise: Promise<number>; generation: number } | null = null;

  async get(count: () => Promise<number>): Promise<number> {
    const now = performance.now();
    if (this.value !== null && now - this.countedAt < USER_TOTAL_TTL_MS) return this.value;
    if (this.value !== null) {
      // Expired only by age: answer the last count, recount in the background.
      if (!this.counting) this.recount(count).catch(() => undefined);
      return this.value;
    }
    if (this.counting && this.counting.generation === this.generation) return this.counting.promise;
    return this.recount(count);
  }

  invalidate(): void {
    this.generation++;
    this.value = null;
  }

  /** This process committed `delta` more (or fewer) users; NaN when it cannot tell how many. */
  adjust(delta: number): void {
    if (delta === 0) return;
    if (this.counting || Number.isNaN(delta)) this.invalidate();
    else if (this.value !== null) this.value += delta;
  }

  private recount(count: () => Promise<number>): Promise<number> {
    const generation = this.generation;
    const promise = count().then(
      (total) => {
        if (this.counting?.promise === promise) this.counting = null;
        if (generation === this.generation) {
          this.value = total;
          this.countedAt = performance.now();
        }
        return total;
      },
      (error: unknown) => {
        if (this.counting?.promise === promise) this.counting = null;
        throw error;
      },
    );
    this.counting = { promise, generation };
    return promise;
  }
}

const totals = new WeakMap<DataSource, UserTotal>();

/** The one user total of a data source, shared by every repository on it (transactional or not). */
export function userTotalOf(dataSource: DataSource): UserTotal {
  let total = totals.get(dataSource);
  if (!total) {
    total = new UserTotal();
    totals.set(dataSource, total);
  }
  return total;
}
