import { DomainError } from '../../domain/shared/domain-error';

/**
 * A prefix search (`q`) that matches too many users to be counted within the database's time limit for one
 * (SEARCH_TIME_LIMIT): refused rather than left running, so no search holds the database for long. The search
 * itself is valid; more of the name, username or e-mail narrows it.
 */
export class SearchTooBroadError extends DomainError {
  readonly code = 'SEARCH_TOO_BROAD';

  constructor() {
    super('The search matches too many users to count in time: type more of the name, username or e-mail');
  }
}
