import type { DataSource } from 'typeorm';
import type { TransactionScope, UnitOfWork } from '../../../application/ports/unit-of-work.port';
import { isMysqlFamily } from './data-source';
import { TypeOrmInvitationRepository } from './typeorm-invitation.repository';
import { TypeOrmOutbox } from './typeorm-outbox';
import { TypeOrmProcessedEventStore } from './typeorm-processed-event.store';
import { TypeOrmUserRepository } from './typeorm-user.repository';

export class TypeOrmUnitOfWork implements UnitOfWork {
  // SQLite has one connection: TypeORM would interleave two transactions on it, so they take turns.
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly dataSource: DataSource) {}

  run<T>(work: (scope: TransactionScope) => Promise<T>): Promise<T> {
    const transaction = () =>
      this.dataSource.transaction((manager) =>
        work({
          users: new TypeOrmUserRepository(manager),
          outbox: new TypeOrmOutbox(manager),
          invitations: new TypeOrmInvitationRepository(manager),
          processedEvents: new TypeOrmProcessedEventStore(manager),
        }),
      );
    return this.exclusive(transaction);
  }

  /**
   * Runs `work` alone on SQLite (after any transaction in progress, before the next); on MySQL at
   * once. Other writers sharing SQLite's one connection (the outbox relay) take their turn here too.
   */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    if (isMysqlFamily(this.dataSource)) return work();
    const result = this.queue.then(work, work);
    this.queue = result.catch(() => undefined);
    return result;
  }
}
