import { AsyncLocalStorage } from 'node:async_hooks';
import type { DataSource, EntityManager } from 'typeorm';
import { isMysqlFamily } from './data-source';

/**
 * SQLite has one connection that TypeORM shares: a statement issued while a transaction is open on it
 * would run inside that transaction (and see, or be rolled back with, its rows), and two transactions
 * would interleave. So transactions (TypeOrmUnitOfWork) and the statements outside them (login attempts,
 * rate-limit counters, processed events, the outbox relay and its backlog probe) take turns here.
 * MySQL and MariaDB have a pool and row locks: there everything runs at once.
 *
 * One per process and data source, registered by the composition root: a second queue on the same
 * connection would not see the first one's turns.
 */
export class SqliteWriteQueue {
  private readonly dataSource: DataSource;
  private tail: Promise<unknown> = Promise.resolve();
  /** The turn the running code is part of, while that turn lasts. */
  private readonly turn = new AsyncLocalStorage<{ ended: boolean }>();

  constructor({ dataSource }: { dataSource: DataSource }) {
    this.dataSource = dataSource;
  }

  /** Runs `work` after everything queued before it (SQLite), or at once (MySQL/MariaDB). */
  serialize<T>(work: () => Promise<T>): Promise<T> {
    if (isMysqlFamily(this.dataSource)) return work();
    // Awaited from inside a turn, it would wait for the turn that waits for it: the request would
    // never answer. Refused at once instead (a transaction reads through its own scope).
    if (this.turn.getStore()?.ended === false) return Promise.reject(new QueuedInsideTurnError());
    const turn = async () => {
      const mark = { ended: false };
      try {
        return await this.turn.run(mark, work);
      } finally {
        mark.ended = true;
      }
    };
    // A turn that fails must not stop the ones after it.
    const result = this.tail.then(turn, turn);
    this.tail = result.catch(() => undefined);
    return result;
  }

  /**
   * Runs `work` on `manager`'s behalf: at once when it is a transaction's (the unit of work already
   * holds the turn: queuing would wait on itself), else in turn. Every repository statement outside a
   * unit of work goes through here, reads included: on SQLite an unqueued read would see another
   * request's uncommitted rows, and an unqueued write would be rolled back with that request.
   */
  outside<T>(manager: EntityManager, work: () => Promise<T>): Promise<T> {
    return manager.queryRunner ? work() : this.serialize(work);
  }
}

/** A statement queued from inside a turn still running: it would wait for itself (see serialize). */
export class QueuedInsideTurnError extends Error {
  constructor() {
    super('SqliteWriteQueue: a statement was queued from inside a transaction on the one SQLite connection, and would wait for it forever; read through the unit of work\'s scope');
    this.name = 'QueuedInsideTurnError';
  }
}
