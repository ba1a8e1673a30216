import { DomainError } from '../shared/domain-error';
import type { DomainEvent } from '../shared/domain-event';
import type { SingleUseToken } from '../shared/single-use-token';

/**
 * The single-use secret behind a password-reset link (issue #10): a newer request kills the older link
 * when the mailer issues the new one.
 */
export type PasswordReset = SingleUseToken;

export const PASSWORD_RESET_REQUESTED = 'PasswordResetRequested';

/** Who asked for the mail, and where it goes. Never a token, a hash or a password. */
export interface PasswordResetRequestedData {
  user_id: string;
  email: string;
  name?: string;
  requested_date: string;
}

export type PasswordResetRequested = DomainEvent<typeof PASSWORD_RESET_REQUESTED, PasswordResetRequestedData>;

/** The event that asks the mailer for a reset link; built from an active user's stored fields. */
export function passwordResetRequested(input: { id: string; userId: string; email: string; name?: string; now: Date }): PasswordResetRequested {
  return {
    id: input.id,
    type: PASSWORD_RESET_REQUESTED,
    aggregateId: input.userId,
    occurredAt: input.now,
    data: {
      user_id: input.userId,
      email: input.email,
      ...(input.name !== undefined ? { name: input.name } : {}),
      requested_date: input.now.toISOString(),
    },
  };
}

export class PasswordResetNotFoundError extends DomainError {
  readonly code = 'PASSWORD_RESET_NOT_FOUND';

  constructor() {
    super('This password-reset link is not valid: it may have been replaced by a newer one');
  }
}

export class PasswordResetExpiredError extends DomainError {
  readonly code = 'PASSWORD_RESET_EXPIRED';

  constructor() {
    super('This password-reset link has expired: ask for a new one');
  }
}

export class PasswordResetUsedError extends DomainError {
  readonly code = 'PASSWORD_RESET_USED';

  constructor() {
    super('This password-reset link has been used already: sign in, or ask for a new one');
  }
}
