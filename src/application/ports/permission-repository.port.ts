import type { Permission } from '../../domain/permissions/permission';
import type { Slice } from '../shared/pagination';

export interface PermissionFilter {
  group?: string;
  name?: string;
}

export interface PermissionRepository {
  /** Exact-match filters, ordered by group then name. */
  /** The whole catalogue, ordered by group then name (a role's permissions are resolved against it). */
  all(): Promise<Permission[]>;
  list(filter: PermissionFilter, slice: Slice): Promise<{ items: Permission[]; total: number }>;
}
