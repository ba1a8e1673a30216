import { DomainError } from '../shared/domain-error';

export class PermissionDeniedError extends DomainError {
  readonly code = 'PERMISSION_DENIED';

  constructor(readonly missing: string[]) {
    super(`Missing permission: ${missing.join(', ')}`, { missing });
  }
}
