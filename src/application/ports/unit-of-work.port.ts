import type { AuditTrail } from './audit-trail.port';
import type { InvitationRepository } from './invitation-repository.port';
import type { MfaStore } from './mfa-store.port';
import type { Outbox } from './outbox.port';
import type { PasswordResetStore } from './password-reset-store.port';
import type { ProcessedEventStore } from './processed-event-store.port';
import type { RoleStore } from './role-repository.port';
import type { ServiceAccountStore } from './service-account-repository.port';
import type { UserRepository } from './user-repository.port';

export interface TransactionScope {
  users: UserRepository;
  outbox: Outbox;
  invitations: InvitationRepository;
  processedEvents: ProcessedEventStore;
  roles: RoleStore;
  passwordResets: PasswordResetStore;
  serviceAccounts: ServiceAccountStore;
  /** Audit entries (#23), committed with the change they describe. */
  audit: AuditTrail;
  /** Second factors (#24): a change to a user's factors moves the user's revocation signal with it. */
  mfa: MfaStore;
}

/** Runs `work` in one database transaction: all of it commits, or none of it. */
export interface UnitOfWork {
  run<T>(work: (scope: TransactionScope) => Promise<T>): Promise<T>;
}
