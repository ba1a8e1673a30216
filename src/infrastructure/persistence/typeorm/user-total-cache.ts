import { CachedTotal, type CachedTotalDeps, USER_TOTAL_FRESHNESS_MS } from './cached-total';
import { FilteredUserTotals } from './filtered-user-totals';

export { USER_TOTAL_FRESHNESS_MS } from './cached-total';
export type UserTotalCacheDeps = CachedTotalDeps;

/**
 * The number of users, for the user list's pagination, without a COUNT(*) per request (see CachedTotal for
 * its freshness), and beside it the totals of the list filtered by role and/or status (`filtered`), kept by
 * the same rules.
 *
 * One per process and data source, registered by the composition root and shared by every user
 * repository on it (transactional or not) and the unit of work that commits their changes.
 */
export class UserTotalCache extends CachedTotal {
  readonly filtered: FilteredUserTotals;

  constructor(deps: UserTotalCacheDeps) {
    super(deps);
    this.filtered = new FilteredUserTotals({ clock: deps.clock, freshnessMs: deps.freshnessMs ?? USER_TOTAL_FRESHNESS_MS });
  }
}
