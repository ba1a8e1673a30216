import { PermissionDeniedError } from '../../domain/permissions/permission-denied.error';
import { missingPermissions } from '../../domain/roles/role';

/** Who is calling: an authenticated, joined user and the permissions of its role now. */
export interface Actor {
  readonly userId: string;
  readonly permissions: readonly string[];
}

export function requirePermission(actor: Actor, ...wanted: string[]): void {
  const missing = missingPermissions(actor.permissions, wanted);
  if (missing.length > 0) throw new PermissionDeniedError(missing);
}
