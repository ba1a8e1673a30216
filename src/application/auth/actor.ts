import { PermissionDeniedError } from '../../domain/permissions/permission-denied.error';
import { missingPermissions } from '../../domain/roles/role';

/**
 * Who is calling: an authenticated, joined user, or an enabled service account, and the permissions of
 * its role now. `userId` is the caller's id either way (a service account's: what `invited_by` and
 * `updated_by` record); `clientId` is set for a service account only.
 */
export interface Actor {
  readonly userId: string;
  readonly permissions: readonly string[];
  /** A service account's client id; absent for a user. */
  readonly clientId?: string;
}

/** Whether the caller is a service account (its token came from the client credentials grant). */
export function isServiceAccount(actor: Actor): boolean {
  return actor.clientId !== undefined;
}

/** The actor with only the permissions its token's scope also names (a service token's `scope`). */
export function narrowedToScope(actor: Actor, scope: readonly string[] | undefined): Actor {
  if (scope === undefined) return actor;
  return { ...actor, permissions: actor.permissions.filter((name) => scope.includes(name)) };
}

export function requirePermission(actor: Actor, ...wanted: string[]): void {
  const missing = missingPermissions(actor.permissions, wanted);
  if (missing.length > 0) throw new PermissionDeniedError(missing);
}
