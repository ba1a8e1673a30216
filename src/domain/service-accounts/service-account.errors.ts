import { DomainError } from '../shared/domain-error';

/** A service account addressed by its id (a path) that does not exist. */
export class NoSuchServiceAccountError extends DomainError {
  readonly code = 'NO_SUCH_SERVICE_ACCOUNT';

  constructor() {
    super('No service account has this id');
  }
}

/** A secret of the service account addressed by its id (a path) that does not exist. */
export class NoSuchServiceAccountSecretError extends DomainError {
  readonly code = 'NO_SUCH_SERVICE_ACCOUNT_SECRET';

  constructor() {
    super('The service account has no secret with this id');
  }
}

/** Service account names are unique case-insensitively. */
export class ServiceAccountNameTakenError extends DomainError {
  readonly code = 'SERVICE_ACCOUNT_NAME_TAKEN';

  constructor(name: string) {
    super(`A service account named "${name}" already exists`, { name });
  }
}

/** Another change to the service account committed since it was read (or since the version the client named). */
export class ServiceAccountChangedConcurrentlyError extends DomainError {
  readonly code = 'SERVICE_ACCOUNT_CHANGED_CONCURRENTLY';

  constructor() {
    super('The service account changed meanwhile: read it again');
  }
}

/** A change that would leave the account with no secret and no key: the service using it would be locked out. */
export class LastCredentialError extends DomainError {
  readonly code = 'LAST_CREDENTIAL';

  constructor() {
    super('This is the account’s last credential: add another secret or register keys first');
  }
}

/** At most MAX_SECRETS secrets at once: enough to rotate with overlap, few enough to check each. */
export class TooManySecretsError extends DomainError {
  readonly code = 'TOO_MANY_SECRETS';

  constructor(max: number) {
    super(`A service account holds at most ${max} secrets: delete one first`, { max });
  }
}
