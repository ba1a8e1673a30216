import type { TransactionScope, UnitOfWork } from '../../../src/application/ports/unit-of-work.port';
import { InMemoryAuditTrail } from './in-memory-audit-trail';
import { ioBoundary } from './io-boundary';
import { InMemoryInvitationRepository } from './in-memory-invitation.repository';
import { InMemoryMfaStore } from './in-memory-mfa.store';
import type { InMemoryOutbox } from './in-memory-outbox';
import { InMemoryPasswordResetStore } from './in-memory-password-reset.store';
import { InMemoryProcessedEventStore } from './in-memory-processed-event.store';
import { InMemoryRoleRepository } from './in-memory-role.repository';
import { InMemoryServiceAccountRepository } from './in-memory-service-account.repository';
import type { InMemoryUserRepository } from './in-memory-user.repository';

export interface InMemoryStores {
  users: InMemoryUserRepository;
  outbox: InMemoryOutbox;
  /** A fresh, empty one when not given. */
  invitations?: InMemoryInvitationRepository;
  /** A fresh, empty one when not given. */
  processedEvents?: InMemoryProcessedEventStore;
  /** A fresh, empty one when not given. */
  roles?: InMemoryRoleRepository;
  /** A fresh, empty one when not given. */
  passwordResets?: InMemoryPasswordResetStore;
  /** A fresh, empty one when not given. */
  serviceAccounts?: InMemoryServiceAccountRepository;
  /** A fresh, empty one when not given. */
  audit?: InMemoryAuditTrail;
  /** A fresh, empty one when not given. */
  mfa?: InMemoryMfaStore;
  /**
   * Run every closure once more after a first attempt that is rolled back, as the TypeORM unit
   * of work does after a deadlock: a use case must be correct when its closure runs twice.
   * Off by default; test/unit/application/unit-of-work-retry.test.ts runs every use case with it.
   */
  retryEveryRun?: boolean;
}

/**
 * Runs the work against transactional copies of the users, the outbox, the invitations and the
 * processed events, and commits all of them only when the work succeeds and the copies' writes
 * still fit (unique keys re-checked on what is committed by then); otherwise nothing changes.
 * Concurrent runs are isolated from each other until commit, as database transactions are; like
 * an UPDATE under MySQL's REPEATABLE READ, a later commit overwrites a row an earlier one changed
 * (no write-write conflict is detected, only unique keys).
 */
export class InMemoryUnitOfWork implements UnitOfWork {
  commits = 0;
  rollbacks = 0;
  readonly users: InMemoryUserRepository;
  readonly outbox: InMemoryOutbox;
  readonly invitations: InMemoryInvitationRepository;
  readonly processedEvents: InMemoryProcessedEventStore;
  readonly roles: InMemoryRoleRepository;
  readonly passwordResets: InMemoryPasswordResetStore;
  readonly serviceAccounts: InMemoryServiceAccountRepository;
  readonly audit: InMemoryAuditTrail;
  readonly mfa: InMemoryMfaStore;
  /** Attempts rolled back on purpose to exercise the retry (not counted in `rollbacks`). */
  retriedAttempts = 0;
  private readonly retryEveryRun: boolean;

  constructor(stores: InMemoryStores) {
    this.retryEveryRun = stores.retryEveryRun ?? false;
    this.users = stores.users;
    this.outbox = stores.outbox;
    this.invitations = stores.invitations ?? new InMemoryInvitationRepository();
    this.processedEvents = stores.processedEvents ?? new InMemoryProcessedEventStore();
    this.roles = stores.roles ?? new InMemoryRoleRepository();
    this.passwordResets = stores.passwordResets ?? new InMemoryPasswordResetStore();
    this.serviceAccounts = stores.serviceAccounts ?? new InMemoryServiceAccountRepository();
    this.audit = stores.audit ?? new InMemoryAuditTrail();
    this.mfa = stores.mfa ?? new InMemoryMfaStore(stores.users);
    // As the foreign key does: a user's row deleted (or erased) takes its invitation with it.
    this.users.linkInvitations(this.invitations);
  }

  async run<T>(work: (scope: TransactionScope) => Promise<T>): Promise<T> {
    if (this.retryEveryRun) {
      // The attempt a deadlock would roll back: its writes are dropped, its errors too (the
      // retry below meets the same ones), and whatever the closure took from outside it is gone.
      const attempt = this.beginScope();
      try {
        await work(attempt);
      } catch {
        // the real attempt decides
      } finally {
        this.closeScope(attempt);
        this.retriedAttempts += 1;
      }
    }
    await ioBoundary();
    const scope = this.beginScope();
    try {
      const result = await work(scope);
      await ioBoundary();
      // All checked before any is applied: the commit is all or nothing.
      const apply = [
        this.users.prepareCommit(scope.users),
        this.outbox.prepareCommit(scope.outbox),
        this.invitations.prepareCommit(scope.invitations),
        this.processedEvents.prepareCommit(scope.processedEvents),
        this.roles.prepareCommit(scope.roles),
        this.passwordResets.prepareCommit(scope.passwordResets),
        this.serviceAccounts.prepareCommit(scope.serviceAccounts),
        this.audit.prepareCommit(scope.audit),
        this.mfa.prepareCommit(scope.mfa),
      ];
      for (const step of apply) step();
      this.commits += 1;
      return result;
    } catch (error) {
      this.rollbacks += 1;
      throw error;
    } finally {
      this.closeScope(scope);
    }
  }

  private beginScope() {
    const users = this.users.beginTransaction();
    const invitations = this.invitations.beginTransaction();
    users.linkInvitations(invitations);
    const serviceAccounts = this.serviceAccounts.beginTransaction();
    return {
      users,
      outbox: this.outbox.beginTransaction(),
      invitations,
      processedEvents: this.processedEvents.beginTransaction(),
      roles: this.roles.beginTransaction(users, serviceAccounts),
      passwordResets: this.passwordResets.beginTransaction(),
      serviceAccounts,
      audit: this.audit.beginTransaction(),
      mfa: this.mfa.beginTransaction(),
    };
  }

  private closeScope(scope: ReturnType<InMemoryUnitOfWork['beginScope']>): void {
    scope.users.close();
    scope.outbox.close();
    scope.invitations.close();
    scope.processedEvents.close();
    scope.roles.close();
    scope.passwordResets.close();
    scope.serviceAccounts.close();
    scope.audit.close();
    scope.mfa.close();
  }
}
