import type { RoleRepository } from '../../application/ports/role-repository.port';
import type { Role } from '../../domain/roles/role';
import { TtlCache } from './ttl-cache';

/** Roles are a handful of rows that rarely change: read them all at most once per `ttlMs`. */
export const ROLE_CACHE_TTL_MS = 2000;

export class CachedRoleRepository implements RoleRepository {
  private readonly cache: TtlCache<'all', Role[]>;

  constructor(private readonly inner: RoleRepository, ttlMs = ROLE_CACHE_TTL_MS) {
    this.cache = new TtlCache({ ttlMs, maxEntries: 1 });
  }

  findAll(): Promise<Role[]> {
    return this.cache.get('all', () => this.inner.findAll());
  }

  async findById(id: string): Promise<Role | null> {
    return this.find((role) => role.id === id);
  }

  async findByName(name: string): Promise<Role | null> {
    return this.find((role) => role.name === name);
  }

  /**
   * A miss reads the roles again before answering: a role created since the last read (by another
   * replica, or directly in the database) must not look absent for the cache's lifetime.
   */
  private async find(match: (role: Role) => boolean): Promise<Role | null> {
    const cached = (await this.findAll()).find(match);
    if (cached) return cached;
    this.cache.clear();
    return (await this.findAll()).find(match) ?? null;
  }

  /** Drops the cached roles (after a change to roles or their permissions in this process). */
  invalidate(): void {
    this.cache.clear();
  }
}
