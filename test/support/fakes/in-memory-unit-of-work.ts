import type { TransactionScope, UnitOfWork } from '../../../src/application/ports/unit-of-work.port';
import { ioBoundary } from './io-boundary';
import type { InMemoryOutbox } from './in-memory-outbox';
import type { InMemoryUserRepository } from './in-memory-user.repository';

/**
 * Runs the work against transactional copies of the users and the outbox, and commits both
 * only when the work succeeds and the copies' inserts still fit; otherwise nothing changes.
 * Concurrent runs are isolated from each other until commit, as database transactions are.
 */
export class InMemoryUnitOfWork implements UnitOfWork {
  commits = 0;
  rollbacks = 0;

  constructor(private readonly stores: { users: InMemoryUserRepository; outbox: InMemoryOutbox }) {}

  async run<T>(work: (scope: TransactionScope) => Promise<T>): Promise<T> {
    await ioBoundary();
    const users = this.stores.users.beginTransaction();
    const outbox = this.stores.outbox.beginTransaction();
    try {
      const result = await work({ users, outbox });
      await ioBoundary();
      // Both checked before either is applied: the commit is all or nothing.
      const applyUsers = this.stores.users.prepareCommit(users);
      const applyOutbox = this.stores.outbox.prepareCommit(outbox);
      applyUsers();
      applyOutbox();
      this.commits += 1;
      return result;
    } catch (error) {
      this.rollbacks += 1;
      throw error;
    } finally {
      users.close();
      outbox.close();
    }
  }
}
