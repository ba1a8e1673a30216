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
