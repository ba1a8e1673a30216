import { DomainError } from '../shared/domain-error';

/** A role addressed by its id (a path) that does not exist: a 404, unlike ROLE_NOT_FOUND (a body or query naming a role). */
export class NoSuchRoleError extends DomainError {
  readonly code = 'NO_SUCH_ROLE';

  constructor() {
    super('No role has this id');
  }
}

/** Role names are unique case-insensitively. */
export class RoleNameTakenError extends DomainError {
  readonly code = 'ROLE_NAME_TAKEN';

  constructor(name: string) {
    super(`A role named "${name}" already exists`, { name });
  }
}

/** A role users (pending, active or deactivated) or service accounts still hold cannot be deleted. */
export class RoleInUseError extends DomainError {
  readonly code = 'ROLE_IN_USE';

  constructor(readonly holders: number) {
    super(holders > 0 ? `${holders} user(s) or service account(s) hold this role: give them another one first` : 'Users or service accounts hold this role: give them another one first', {
      holders,
    });
  }
}

/** `admin` and `member` are part of the service: neither is deleted or renamed, and admin keeps every permission. */
export class BuiltInRoleError extends DomainError {
  readonly code = 'BUILT_IN_ROLE';

  constructor(action: string) {
    super(`A built-in role cannot be ${action}`, { action });
  }
}

/** Another change to the role committed since it was read (or since the version the client named). */
export class RoleChangedConcurrentlyError extends DomainError {
  readonly code = 'ROLE_CHANGED_CONCURRENTLY';

  constructor() {
    super('The role changed meanwhile: read it again');
  }
}

/** A permission named (by name or `_id`) in a role's body that does not exist. */
export class PermissionNotFoundError extends DomainError {
  readonly code = 'PERMISSION_NOT_FOUND';

  constructor(readonly unknown: string[]) {
    super(`No permission named or identified by ${unknown.map((p) => `"${p}"`).join(', ')}`, { permissions: unknown });
  }
}
