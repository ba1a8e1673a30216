import { DomainError } from '../shared/domain-error';

export class EmailAlreadyTakenError extends DomainError {
  readonly code = 'EMAIL_TAKEN';

  constructor() {
    super('A user with this e-mail address already exists');
  }
}

export class UsernameAlreadyTakenError extends DomainError {
  readonly code = 'USERNAME_TAKEN';

  constructor() {
    super('This username is already taken');
  }
}

/** One error for unknown user, wrong password and not-yet-joined user: nothing to enumerate. */
export class InvalidCredentialsError extends DomainError {
  readonly code = 'INVALID_CREDENTIALS';

  constructor() {
    super('Invalid username or password');
  }
}

export class UserNotFoundError extends DomainError {
  readonly code = 'USER_NOT_FOUND';

  constructor() {
    super('No such user');
  }
}

/** Another change to the user committed since it was read (or since the version the client named). */
export class UserChangedConcurrentlyError extends DomainError {
  readonly code = 'USER_CHANGED_CONCURRENTLY';

  constructor() {
    super('The user was changed by another request meanwhile: read it again and retry');
  }
}

/** The change would leave no active user holding the admin role. */
export class LastActiveAdminError extends DomainError {
  readonly code = 'LAST_ACTIVE_ADMIN';

  constructor() {
    super('This is the last active admin: make another user an admin first');
  }
}

/** Deactivating or deleting one's own account through the administration calls. */
export class OwnAccountError extends DomainError {
  readonly code = 'OWN_ACCOUNT';

  constructor(action: 'deactivate' | 'delete' | 'reset the second factor of') {
    super(`You cannot ${action} your own account: another admin has to`, { action });
  }
}

/** The user is deactivated: nothing can be sent to it or accepted for it until it is reactivated. */
export class UserDeactivatedError extends DomainError {
  readonly code = 'USER_DEACTIVATED';

  constructor() {
    super('This user is deactivated: reactivate it first');
  }
}
