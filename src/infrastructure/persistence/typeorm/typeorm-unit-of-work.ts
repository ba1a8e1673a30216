import type { DataSource } from 'typeorm';
import type { RunOptions, TransactionScope, UnitOfWork } from '../../../application/ports/unit-of-work.port';
import { TypeOrmAuditTrail } from './audit/typeorm-audit-trail';
import { retryDeadlocks } from './deadlock-retry';
import type { SqliteWriteQueue } from './sqlite-write-queue';
import type { ConnectionTurns } from './connection-turns';
import { TypeOrmInvitationRepository } from './typeorm-invitation.repository';
import { TypeOrmMfaStore } from './typeorm-mfa.store';
import { TypeOrmOutbox } from './typeorm-outbox.store';
import { TypeOrmPasswordResetStore } from './typeorm-password-reset.store';
import { TypeOrmProcessedEventStore } from './typeorm-processed-event.store';
import { TypeOrmRoleRepository } from './typeorm-role.repository';
import { TypeOrmServiceAccountRepository } from './typeorm-service-account.repository';
import { TypeOrmUserRepository, type UserPersistenceServices } from './typeorm-user.repository';

export interface TypeOrmUnitOfWorkDeps extends UserPersistenceServices {
  dataSource: DataSource;
  /** SQLite's one connection would interleave two transactions: they, and the statements outside them, take turns. */
  sqliteWriteQueue: SqliteWriteQueue;
  /** The process's turns (RunOptions.turn), taken before the transaction's connection. */
  connectionTurns: ConnectionTurns;
  /**
   * Called after a commit that wrote outbox events (the relay's nudge), with `events`. Audit entries written in the
   * transaction call nothing: their events reach the outbox when the sealer links them (audit-sealer.ts).
   */
  onEventsCommitted?: (kind: 'events' | 'audit') => void;
}

export class TypeOrmUnitOfWork implements UnitOfWork {
  private readonly dataSource: DataSource;
  private readonly sqliteWriteQueue: SqliteWriteQueue;
  private readonly turns: ConnectionTurns;
  private readonly services: UserPersistenceServices;
  private readonly onEventsCommitted: (kind: 'events' | 'audit') => void;

  constructor(deps: TypeOrmUnitOfWorkDeps) {
    this.dataSource = deps.dataSource;
    this.sqliteWriteQueue = deps.sqliteWriteQueue;
    this.turns = deps.connectionTurns;
    this.services = {
      userReadStatements: deps.userReadStatements,
      userPageStatements: deps.userPageStatements,
      userListIndex: deps.userListIndex,
      userChangeNotices: deps.userChangeNotices,
      plainInsertStatements: deps.plainInsertStatements,
      loginAttemptKeys: deps.loginAttemptKeys,
      sqliteWriteQueue: deps.sqliteWriteQueue,
    };
    this.onEventsCommitted = deps.onEventsCommitted ?? (() => undefined);
  }

  async run<T>(work: (scope: TransactionScope) => Promise<T>, options: RunOptions = {}): Promise<T> {
    const { turn } = options;
    return turn === undefined ? this.runNow(work) : this.turns.inTurn(turn, () => this.runNow(work));
  }

  private async runNow<T>(work: (scope: TransactionScope) => Promise<T>): Promise<T> {
    let outbox: TypeOrmOutbox | undefined;
    const { plainInsertStatements } = this.services;
    const transaction = () =>
      this.dataSource.transaction(async (manager) => {
        outbox = new TypeOrmOutbox({ manager, plainInsertStatements });
        const users = new TypeOrmUserRepository({ manager, ...this.services });
        const result = await work({
          users,
          outbox,
          invitations: new TypeOrmInvitationRepository({ manager, plainInsertStatements, sqliteWriteQueue: this.sqliteWriteQueue }),
          processedEvents: new TypeOrmProcessedEventStore({ manager, plainInsertStatements, sqliteWriteQueue: this.sqliteWriteQueue }),
          roles: new TypeOrmRoleRepository({ manager, sqliteWriteQueue: this.sqliteWriteQueue }),
          passwordResets: new TypeOrmPasswordResetStore({ manager, plainInsertStatements, sqliteWriteQueue: this.sqliteWriteQueue }),
          serviceAccounts: new TypeOrmServiceAccountRepository({ manager, sqliteWriteQueue: this.sqliteWriteQueue }),
          audit: new TypeOrmAuditTrail(manager),
          mfa: new TypeOrmMfaStore({ manager, sqliteWriteQueue: this.sqliteWriteQueue, loginAttemptKeys: this.services.loginAttemptKeys }),
        });
        // Last, after every other lock the transaction took: the page index's counts commit with the user rows.
        await users.flushListChanges();
        return result;
      });
    // A deadlock's victim was rolled back whole and runs again (a revoke racing the mailer's token insert
    // on the same user is such a case): safe because everything the closure writes is built inside it,
    // as every use case's is (test/unit/application/unit-of-work-retry.test.ts).
    const result = await this.sqliteWriteQueue.serialize(() => retryDeadlocks(transaction));
    if (outbox && outbox.appended > 0) this.onEventsCommitted('events');
    return result;
  }
}
