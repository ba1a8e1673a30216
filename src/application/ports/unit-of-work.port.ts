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

/** How a unit of work is run, beyond its work. */
export interface RunOptions {
  /**
   * Work that takes turns on one row of the database anyway (`roles`: every role change first takes the role
   * catalogue's, RoleStore): runs of one turn wait for each other in this process before their transaction takes a
   * connection. So however many wait, and however long that row is held, they hold one connection of the pool, not
   * every one of it, and the requests that never take the turn (sign-ins) keep theirs. A run that waits longer than a
   * statement may (DATABASE_QUERY_TIMEOUT) fails as that statement would: the database is busy, try again shortly.
   */
  turn?: 'roles';
}

/** Runs `work` in one database transaction: all of it commits, or none of it. */
export interface UnitOfWork {
  run<T>(work: (scope: TransactionScope) => Promise<T>, options?: RunOptions): Promise<T>;
}
