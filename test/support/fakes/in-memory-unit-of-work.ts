import type { TransactionScope, UnitOfWork } from '../../../src/application/ports/unit-of-work.port';
import { ioBoundary } from './io-boundary';
import { InMemoryInvitationRepository } from './in-memory-invitation.repository';
import type { InMemoryOutbox } from './in-memory-outbox';
import { InMemoryProcessedEventStore } from './in-memory-processed-event.store';
import type { InMemoryUserRepository } from './in-memory-user.repository';

export interface InMemoryStores {
  users: InMemoryUserRepository;
  outbox: InMemoryOutbox;
  /** A fresh, empty one when not given. */
  invitations?: InMemoryInvitationRepository;
  /** A fresh, empty one when not given. */
  processedEvents?: InMemoryProcessedEventStore;
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

  constructor(stores: InMemoryStores) {
    this.users = stores.users;
    this.outbox = stores.outbox;
    this.invitations = stores.invitations ?? new InMemoryInvitationRepository();
    this.processedEvents = stores.processedEvents ?? new InMemoryProcessedEventStore();
  }

  async run<T>(work: (scope: TransactionScope) => Promise<T>): Promise<T> {
    await ioBoundary();
    const scope = {
      users: this.users.beginTransaction(),
      outbox: this.outbox.beginTransaction(),
      invitations: this.invitations.beginTransaction(),
      processedEvents: this.processedEvents.beginTransaction(),
    };
    try {
      const result = await work(scope);
      await ioBoundary();
      // All checked before any is applied: the commit is all or nothing.
      const apply = [
        this.users.prepareCommit(scope.users),
        this.outbox.prepareCommit(scope.outbox),
        this.invitations.prepareCommit(scope.invitations),
        this.processedEvents.prepareCommit(scope.processedEvents),
      ];
      for (const step of apply) step();
      this.commits += 1;
      return result;
    } catch (error) {
      this.rollbacks += 1;
      throw error;
    } finally {
      scope.users.close();
      scope.outbox.close();
      scope.invitations.close();
      scope.processedEvents.close();
    }
  }
}
