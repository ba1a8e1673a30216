import type { RoleDetails } from '../../domain/roles/role';
import { isoTimestamp } from '../../domain/shared/iso-timestamp';

/** A role as the administration shows it. */
export interface RoleView {
  _id: string;
  name: string;
  /** Permission names, sorted. */
  permissions: string[];
  built_in: boolean;
  created_date: string;
  updated_date?: string;
  updated_by?: string;
}

/** One role and the version a change may name (If-Match). */
export interface RoleAnswer {
  role: RoleView;
  version: number;
}

export function toRoleView(role: RoleDetails): RoleView {
  return {
    _id: role.id,
    name: role.name,
    permissions: [...role.permissions],
    built_in: role.builtIn,
    created_date: isoTimestamp(role.createdAt),
    ...(role.updatedAt ? { updated_date: isoTimestamp(role.updatedAt) } : {}),
    ...(role.updatedBy ? { updated_by: role.updatedBy } : {}),
  };
}

export function toRoleAnswer(role: RoleDetails): RoleAnswer {
  return { role: toRoleView(role), version: role.version };
}
