import { DomainError } from '../../domain/shared/domain-error';

/**
 * One error for every refresh token that cannot be exchanged (unknown, expired, used, revoked, its user
 * signed out, deactivated or deleted): nothing tells a caller which, so nothing can be probed.
 */
export class InvalidRefreshTokenError extends DomainError {
  readonly code = 'INVALID_REFRESH_TOKEN';

  constructor() {
    super('The refresh token is not valid: sign in again');
  }
}

/** The current password given to change one's own is wrong (or the account is locked: the same answer). */
export class WrongCurrentPasswordError extends DomainError {
  readonly code = 'WRONG_CURRENT_PASSWORD';

  /** `field`: the request's field that held the password (`current_password` to change it, `password` to prove it). */
  constructor(field = 'current_password') {
    super(`${field} is not your current password`);
  }
}

/**
 * A service account's token on a route about the caller's own user (`/v1/me`): a service has no user
 * account. 404 with its own code, so a client tells it from a user deleted meanwhile (USER_NOT_FOUND).
 */
export class NotAUserError extends DomainError {
  readonly code = 'NOT_A_USER';

  constructor() {
    super('This token is a service account’s: it has no user account here (read GET /v1/service-accounts/{id} for the account)');
  }
}
