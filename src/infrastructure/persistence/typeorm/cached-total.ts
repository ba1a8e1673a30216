import type { Clock } from '../../../application/ports/clock.port';

export interface CachedTotalDeps {
  clock: Clock;
  /** Default USER_TOTAL_FRESHNESS_MS. */
  freshnessMs?: number;
}

/** How long a count of the users is answered before it is counted again, unless the root says otherwise. */
export const USER_TOTAL_FRESHNESS_MS = 5000;

/**
 * A count of users (the whole list's, or a filter's: filtered-user-totals.ts), for the user list's pagination,
 * without a COUNT(*) per request.
 *
 * Freshness: the total is recounted when it is older than `freshnessMs` on the clock (the stale value
 * is served while the recount runs, so no request waits for it). Users this process adds or removes
 * move the total at once when their write commits (`adjust`), without a recount, so an invite
 * does not make the next list count a million rows; only when a recount is in flight (it may or may
 * not see the change) is the total dropped instead, and the next list waits for an exact count.
 * Users added or removed by another process (another replica, a bulk import) show in the total
 * after at most `freshnessMs` plus one count.
 */
export class CachedTotal {
  private readonly clock: Clock;
  private readonly freshnessMs: number;
  private value: number | null = null;
  private countedAt = 0;
  private generation = 0;
  private counting: { promise: Promise<number>; generation: number } | null = null;

  constructor({ clock, freshnessMs = USER_TOTAL_FRESHNESS_MS }: CachedTotalDeps) {
    if (!Number.isFinite(freshnessMs) || freshnessMs < 0) throw new RangeError(`freshnessMs must be 0 or more (got ${freshnessMs})`);
    this.clock = clock;
    this.freshnessMs = freshnessMs;
  }

  async get(count: () => Promise<number>): Promise<number> {
    const age = this.now() - this.countedAt;
    // A clock set back (the system clock is the wall clock) makes a count old, not fresh for as long.
    if (this.value !== null && age >= 0 && age < this.freshnessMs) return this.value;
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

  private now(): number {
    return this.clock.now().getTime();
  }

  private recount(count: () => Promise<number>): Promise<number> {
    const generation = this.generation;
    const promise = count().then(
      (total) => {
        if (this.counting?.promise === promise) this.counting = null;
        if (generation === this.generation) {
          this.value = total;
          this.countedAt = this.now();
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
