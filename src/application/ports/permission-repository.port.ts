import type { Permission } from '../../domain/permissions/permission';
import type { Slice } from '../shared/pagination';

export interface PermissionFilter {
  group?: string;
  name?: string;
}

export interface PermissionRepository {
  /** Exact-match filters, ordered by group then name. */
  list(filter: PermissionFilter, slice: Slice): Promise<{ items: Permission[]; total: number }>;
}
