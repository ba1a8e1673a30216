import { LRUCache } from 'lru-cache';
import type { Clock } from '../../../application/ports/clock.port';
import { CachedTotal } from './cached-total';

/** The (role, status) pairs whose totals are kept: every role alone, with each status, and each status alone. */
export const FILTERED_TOTALS_MAX_KEYS = 256;

/** What a cached filtered total is counted for: a role, a status, or both (never neither: that is the whole list's). */
export interface TotalKey {
  roleId?: string;
  status?: string;
}

/** What a transaction wrote that moves filtered totals: the roles of the users it added, and whether it did more. */
export interface UncommittedTotalChanges {
  added: string[];
  changed: boolean;
}

/**
 * The totals of the user list filtered by role and/or status, each kept as the whole list's is (a
 * CachedTotal per key: served while younger than the freshness, then served stale while one recount runs),
 * at most FILTERED_TOTALS_MAX_KEYS keys (least recently used dropped first).
 *
 * This process's own committed writes make the totals exact again before the next list: a user added moves
 * the three totals it counts in (`added`, as the whole list's `adjust`), any other user write (a status or a
 * role changed, a user erased or deleted; the repository does not know the row's old role and status) drops
 * every filtered total (`changed`), so the next list of each counts again, and a count in flight when it
 * happened stores nothing. Writes of other processes show within the freshness plus one count.
 */
export class FilteredUserTotals {
  private readonly clock: Clock;
  private readonly freshnessMs: number;
  private readonly totals: LRUCache<string, CachedTotal>;

  constructor({ clock, freshnessMs, maxKeys = FILTERED_TOTALS_MAX_KEYS }: { clock: Clock; freshnessMs: number; maxKeys?: number }) {
    this.clock = clock;
    this.freshnessMs = freshnessMs;
    this.totals = new LRUCache({ max: Math.max(1, Math.floor(maxKeys)) });
  }

  get(key: TotalKey, count: () => Promise<number>): Promise<number> {
    const name = keyOf(key);
    let total = this.totals.get(name);
    if (!total) {
      total = new CachedTotal({ clock: this.clock, freshnessMs: this.freshnessMs });
      this.totals.set(name, total);
    }
    return total.get(count);
  }

  /** This process committed `count` new users, all of role `roleId` and status `pending` (NaN: unknown). */
  added(roleId: string, count: number): void {
    if (Number.isNaN(count)) return this.changed();
    for (const key of [{ roleId }, { roleId, status: 'pending' }, { status: 'pending' }]) this.totals.peek(keyOf(key))?.adjust(count);
  }

  /** A transaction of this process committed what it wrote (the repository's `uncommittedTotalChanges`). */
  committed({ added, changed }: UncommittedTotalChanges): void {
    if (changed) return this.changed();
    for (const roleId of added) this.added(roleId, 1);
  }

  /** This process committed a user write that may have moved users between roles or statuses, or removed some. */
  changed(): void {
    // Each one invalidated, not only dropped: a count in flight for it must not store what it read.
    for (const total of this.totals.values()) total.invalidate();
    this.totals.clear();
  }
}

function keyOf({ roleId = '', status = '' }: TotalKey): string {
  return `${roleId}\u0000${status}`;
}
