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
  /** A service account's: its tokens issued (`iat`) before this second are not its (it was disabled since). */
  readonly tokensValidFrom?: number;
}

/** Whether the caller is a service account (its token came from the client credentials grant). */
export function isServiceAccount(actor: Actor): boolean {
  return actor.clientId !== undefined;
}

/** Whether a token issued at `issuedAt` (its `iat`; absent: not asked) may act as this actor: a service account's not before its last disabling. */
export function takesTokenIssuedAt(actor: Actor, issuedAt: number | undefined): boolean {
  return issuedAt === undefined || actor.tokensValidFrom === undefined || issuedAt >= actor.tokensValidFrom;
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
