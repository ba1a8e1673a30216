import { DomainError } from '../shared/domain-error';

export class InvitationNotFoundError extends DomainError {
  readonly code = 'INVITATION_NOT_FOUND';

  constructor() {
    super('This invitation link is not valid: it may have been replaced by a newer one or revoked');
  }
}

export class InvitationExpiredError extends DomainError {
  readonly code = 'INVITATION_EXPIRED';

  constructor() {
    super('This invitation link has expired: ask for a new one');
  }
}

export class InvitationUsedError extends DomainError {
  readonly code = 'INVITATION_USED';

  constructor() {
    super('This invitation link has been used already: sign in instead');
  }
}

export class UserAlreadyJoinedError extends DomainError {
  readonly code = 'USER_ALREADY_JOINED';

  constructor() {
    super('This user has joined already: there is no invitation to resend or revoke');
  }
}
