import type { RoleRepository } from '../../application/ports/role-repository.port';
import type { Role, RoleDetails } from '../../domain/roles/role';

/** Where the roles come from: all of them, and the catalogue's revision (it moves on with every committed role change). */
export interface RoleCatalogue {
  findAllDetails(): Promise<RoleDetails[]>;
  revision(): Promise<number>;
}

/**
 * Roles are a handful of rows: they are read whole and kept with the catalogue's revision. Every read
 * first reads the revision (one primary-key lookup) and reads the roles again only when it moved on,
 * so a role changed by any process (another replica included) shows on the next read, never later.
 * A time-to-live would have let another replica grant a removed permission for that long.
 * Concurrent reads at one revision share one load; the revision is never shared, as a read begun
 * before a change committed could not tell a request that came after it.
 */
export class CachedRoleRepository implements RoleRepository {
  private cached: { revision: number; roles: RoleDetails[] } | null = null;
  private loading: { revision: number; promise: Promise<RoleDetails[]> } | null = null;

  constructor(private readonly catalogue: RoleCatalogue) {}

  async findAllDetails(): Promise<RoleDetails[]> {
    const revision = await this.catalogue.revision();
    if (this.cached?.revision === revision) return this.cached.roles;
    if (this.loading?.revision !== revision) {
      // The roles are read after the revision: they are at least that recent (if newer, the next read loads again).
      const promise = this.catalogue.findAllDetails().then(
        (roles) => {
          if (this.loading?.promise === promise) this.loading = null;
          if (!this.cached || this.cached.revision < revision) this.cached = { revision, roles };
          return roles;
        },
        (error: unknown) => {
          if (this.loading?.promise === promise) this.loading = null;
          throw error;
        },
      );
      this.loading = { revision, promise };
    }
    return this.loading.promise;
  }

  findAll(): Promise<Role[]> {
    return this.findAllDetails();
  }

  async findById(id: string): Promise<Role | null> {
    return this.find((role) => role.id === id);
  }

  async findByName(name: string): Promise<Role | null> {
    return this.find((role) => role.name === name);
  }

  /**
   * A miss reads the roles again whatever the revision: a role inserted into the tables directly (an
   * operator, a test fixture) moves no revision, and must not look absent until the next role change.
   */
  private async find(match: (role: RoleDetails) => boolean): Promise<RoleDetails | null> {
    const cached = (await this.findAllDetails()).find(match);
    if (cached) return cached;
    const revision = await this.catalogue.revision();
    const roles = await this.catalogue.findAllDetails();
    if (!this.cached || this.cached.revision <= revision) this.cached = { revision, roles };
    return roles.find(match) ?? null;
  }

  /** The revision the cached roles were read at, or null before the first read (for tests and metrics). */
  get cachedRevision(): number | null {
    return this.cached?.revision ?? null;
  }
}
