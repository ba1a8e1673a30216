import type { DataSource } from 'typeorm';
import type { TransactionScope, UnitOfWork } from '../../../application/ports/unit-of-work.port';
import { isMysqlFamily } from './data-source';
import { TypeOrmInvitationRepository } from './typeorm-invitation.repository';
import { TypeOrmOutbox } from './typeorm-outbox';
import { TypeOrmProcessedEventStore } from './typeorm-processed-event.store';
import { TypeOrmUserRepository } from './typeorm-user.repository';
import { userTotalOf } from './user-total';

export class TypeOrmUnitOfWork implements UnitOfWork {
  // SQLite has one connection: TypeORM would interleave two transactions on it, so they take turns.
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly dataSource: DataSource,
    /** Called after a commit that wrote outbox events (the relay's nudge). */
    private readonly onEventsCommitted: () => void = () => undefined,
  ) {}

  async run<T>(work: (scope: TransactionScope) => Promise<T>): Promise<T> {
    let outbox: TypeOrmOutbox | undefined;
    let users: TypeOrmUserRepository | undefined;
    const transaction = () =>
      this.dataSource.transaction((manager) => {
        outbox = new TypeOrmOutbox(manager);
        users = new TypeOrmUserRepository(manager);
        return work({
          users,
          outbox,
          invitations: new TypeOrmInvitationRepository(manager),
          processedEvents: new TypeOrmProcessedEventStore(manager),
        });
      });
    const result = await this.exclusive(() => retryDeadlocks(transaction));
    // Committed: the user total moves by what the (last, successful) attempt added or removed.
    userTotalOf(this.dataSource).adjust(users?.uncommittedUserDelta ?? 0);
    if (outbox && outbox.appended > 0) this.onEventsCommitted();
    return result;
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

/**
 * InnoDB resolves a deadlock by rolling back one whole transaction ("try restarting transaction"):
 * nothing of it was written, so it is run again, a few times, before the caller sees the error
 * (a revoke racing the mailer's token insert on the same user is such a case). The work of a
 * transaction only touches the database, so running it again is safe.
 */
async function retryDeadlocks<T>(transaction: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transaction();
    } catch (error) {
      const e = error as { code?: string; driverError?: { code?: string } };
      const deadlock = (e?.driverError?.code ?? e?.code) === 'ER_LOCK_DEADLOCK';
      if (!deadlock || attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5 * attempt + Math.floor(Math.random() * 10)));
    }
  }
}
