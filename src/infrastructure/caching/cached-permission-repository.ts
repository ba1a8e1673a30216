import type { PermissionFilter, PermissionRepository } from '../../application/ports/permission-repository.port';
import type { Slice } from '../../application/shared/pagination';
import type { Permission } from '../../domain/permissions/permission';
import { TtlCache } from './ttl-cache';

/** Where the whole catalogue comes from, ordered by group then name. */
export interface PermissionCatalogue {
  all(): Promise<Permission[]>;
}

/**
 * The permission catalogue is a handful of rows written only by migrations: it is read whole at
 * most once per `ttlMs` (single-flight), and filtered and paged in memory, in the order the
 * database gave it. A permission added to the database shows within `ttlMs`.
 */
export const PERMISSION_CACHE_TTL_MS = 2000;

export class CachedPermissionRepository implements PermissionRepository {
  private readonly cache: TtlCache<'all', Permission[]>;

  /** `now`: the clock the TTL is read on (a test's); default performance.now(). */
  constructor(private readonly catalogue: PermissionCatalogue, ttlMs = PERMISSION_CACHE_TTL_MS, now?: () => number) {
    this.cache = new TtlCache({ ttlMs, maxEntries: 1, ...(now ? { now } : {}) });
  }

  all(): Promise<Permission[]> {
    return this.cache.get('all', () => this.catalogue.all());
  }

  async list(filter: PermissionFilter, { offset, limit }: Slice): Promise<{ items: Permission[]; total: number }> {
    const all = await this.all();
    const matching = all.filter(
      (p) => (filter.group === undefined || p.group === filter.group) && (filter.name === undefined || p.name === filter.name),
    );
    return { items: matching.slice(offset, offset + limit), total: matching.length };
  }
}
