import { DomainError } from '../../domain/shared/domain-error';

/** A `scope` asked of the client credentials grant names a permission the account's role does not hold (or is not a scope). */
export class InvalidScopeError extends DomainError {
  readonly code = 'INVALID_SCOPE';

  constructor() {
    super("scope must be space-separated permission names the account's role holds");
  }
}

/**
 * The grant's client assertion was remembered already (a replay, found as the grant commits): the client is
 * refused as for any other bad credential (invalid_client), and no token leaves.
 */
export class ClientAssertionReplayedError extends Error {
  constructor() {
    super('The client assertion was used before');
    this.name = 'ClientAssertionReplayedError';
  }
}

/**
 * A `resource` (RFC 8707) this service issues no token for: not an absolute URI RESOURCE_SERVERS lists, nor this
 * service's own issuer (the only one a user's token may name). Answered `invalid_target`.
 */
export class InvalidTargetError extends DomainError {
  readonly code = 'INVALID_TARGET';

  constructor(message = 'resource must be this service (its issuer) or one of the resource servers it issues tokens for (RESOURCE_SERVERS)') {
    super(message);
  }
}
