import { DomainError } from '../shared/domain-error';

export class RoleNotFoundError extends DomainError {
  readonly code = 'ROLE_NOT_FOUND';

  constructor(role: string) {
    super(`No role named or identified by "${role}"`, { role });
  }
}
