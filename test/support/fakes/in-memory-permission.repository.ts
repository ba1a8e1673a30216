import type { PermissionFilter, PermissionRepository } from '../../../src/application/ports/permission-repository.port';
import type { Slice } from '../../../src/application/shared/pagination';
import type { Permission } from '../../../src/domain/permissions/permission';
import { ioBoundary } from './io-boundary';

/** Exact-match filters, ordered by group then name, then sliced: the port's contract. */
export class InMemoryPermissionRepository implements PermissionRepository {
  private readonly permissions: Permission[];

  constructor(permissions: readonly Permission[] = []) {
    this.permissions = permissions.map((p) => ({ ...p }));
  }

  async all(): Promise<Permission[]> {
    await ioBoundary();
    return [...this.permissions].sort((a, b) => compare(a.group, b.group) || compare(a.name, b.name)).map((p) => ({ ...p }));
  }

  async list(filter: PermissionFilter, { offset, limit }: Slice): Promise<{ items: Permission[]; total: number }> {
    await ioBoundary();
    const matching = this.permissions
      .filter((p) => filter.group === undefined || p.group === filter.group)
      .filter((p) => filter.name === undefined || p.name === filter.name)
      .sort((a, b) => compare(a.group, b.group) || compare(a.name, b.name));
    return { items: matching.slice(offset, offset + limit).map((p) => ({ ...p })), total: matching.length };
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
