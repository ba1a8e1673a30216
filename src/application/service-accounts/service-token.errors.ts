import { DomainError } from '../../domain/shared/domain-error';

/** A `scope` asked of the client credentials grant names a permission the account's role does not hold (or is not a scope). */
export class InvalidScopeError extends DomainError {
  readonly code = 'INVALID_SCOPE';

  constructor() {
    super('scope must be space-separated permission names the account’s role holds');
  }
}
