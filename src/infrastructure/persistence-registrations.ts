import { asFunction, type Resolver } from 'awilix';
import type { DataSource } from 'typeorm';
import type { Clock } from '../application/ports/clock.port';
import type { ProcessedEventStore } from '../application/ports/processed-event-store.port';
import type { Config } from './config/config';
import { keepEntrySealKey } from './persistence/typeorm/audit/entry-seal-keys';
import { closeDataSource, createDataSource } from './persistence/typeorm/data-source';
import { PlainInsertStatements } from './persistence/typeorm/plain-insert-statements';
import { SqliteWriteQueue } from './persistence/typeorm/sqlite-write-queue';
import { TypeOrmProcessedEventStore } from './persistence/typeorm/typeorm-processed-event.store';
import { RetriedProcessedEvents } from './persistence/typeorm/retried-processed-events';
import { ConnectionTurns, SEARCH_SLOTS } from './persistence/typeorm/connection-turns';
import { TypeOrmUnitOfWork } from './persistence/typeorm/typeorm-unit-of-work';
import type { UserPersistenceServices } from './persistence/typeorm/typeorm-user.repository';
import { UserChangeNotices } from './persistence/typeorm/user-change-notices';
import { UserReadStatements } from './persistence/typeorm/user-read-statements';
import { UserListIndex } from './persistence/typeorm/user-list-index';
import { UserPageStatements } from './persistence/typeorm/user-page-statements';
import { LoginAttemptKeys } from './persistence/typeorm/login-attempt-key';

/** One resolver per name of a cradle, each for that name's type: a registration left out does not compile. */
export type Registrations<C> = { [K in keyof C]: Resolver<C[K]> };

/**
 * The database side that every process root (the API's, the mailer's) registers alike: one of each
 * per process, shared by every adapter on the data source, so a reader finds all of its state here.
 */
export interface PersistenceCradle extends UserPersistenceServices {
  dataSource: DataSource;
  /** SQLite's one connection, taken in turns by transactions and the statements outside them; runs everything at once on MySQL/MariaDB. */
  sqliteWriteQueue: SqliteWriteQueue;
  /** Outside any transaction: a write of its own. */
  processedEventStore: ProcessedEventStore;
  /** The turns of the process's work on the database (role changes, searches), each waited for at most a statement's timeout. */
  connectionTurns: ConnectionTurns;
}

/** What the registrations below read from the cradle besides each other. */
type Needs = PersistenceCradle & { clock: Clock };

export function persistenceRegistrations(
  config: Pick<Config, 'database' | 'searchTimeLimitSeconds'> & Partial<Pick<Config, 'databaseQueryTimeoutSeconds'>> & { audit?: Pick<Config['audit'], 'sealKey'> },
): Registrations<PersistenceCradle> {
  const { searchTimeLimitSeconds } = config;
  return {
    // Entries inserted through it carry their seal under AUDIT_SEAL_KEY (entry-seal-keys.ts).
    dataSource: asFunction(() => {
      const dataSource = createDataSource(config.database, { queryTimeoutMs: (config.databaseQueryTimeoutSeconds ?? 0) * 1000 });
      keepEntrySealKey(dataSource, config.audit?.sealKey);
      return dataSource;
    })
      .singleton()
      .disposer(closeDataSource),
    sqliteWriteQueue: asFunction(({ dataSource }: Needs) => new SqliteWriteQueue({ dataSource })).singleton(),
    plainInsertStatements: asFunction(({ dataSource }: Needs) => new PlainInsertStatements({ dataSource })).singleton(),
    userReadStatements: asFunction(({ dataSource, connectionTurns }: Needs) => new UserReadStatements({ dataSource, searchTimeLimitSeconds, connectionTurns })).singleton(),
    userPageStatements: asFunction(({ dataSource, connectionTurns }: Needs) => new UserPageStatements({ dataSource, searchTimeLimitSeconds, connectionTurns })).singleton(),
    userListIndex: asFunction(({ dataSource, sqliteWriteQueue }: Needs) => new UserListIndex({ dataSource, sqliteWriteQueue })).singleton(),
    userChangeNotices: asFunction(() => new UserChangeNotices()).singleton(),
    connectionTurns: asFunction(() => new ConnectionTurns({ waitMs: (config.databaseQueryTimeoutSeconds ?? 0) * 1000, slots: { search: SEARCH_SLOTS } })).singleton(),
    // The second factors' key (MfaCradle) is read at the first row key asked for, never by a process that counts no sign-in.
    loginAttemptKeys: asFunction((cradle: Needs & { mfaKey: Buffer }) => new LoginAttemptKeys(() => cradle.mfaKey)).singleton(),
    // Its record, made after a mail was accepted, is tried again at once on a failure (RetriedProcessedEvents).
    processedEventStore: asFunction(
      ({ dataSource, plainInsertStatements, sqliteWriteQueue }: Needs) =>
        new RetriedProcessedEvents(new TypeOrmProcessedEventStore({ manager: dataSource.manager, plainInsertStatements, sqliteWriteQueue })),
    ).singleton(),
  };
}

/** The services a user repository shares with every other one of the process, read from the cradle one by one. */
export function userPersistenceServices(cradle: UserPersistenceServices): UserPersistenceServices {
  // Picked, never spread: spreading the cradle would resolve every registration of the container.
  const { userReadStatements, userPageStatements, userListIndex, userChangeNotices, plainInsertStatements, sqliteWriteQueue, loginAttemptKeys } = cradle;
  return { userReadStatements, userPageStatements, userListIndex, userChangeNotices, plainInsertStatements, sqliteWriteQueue, loginAttemptKeys };
}

/** The unit of work on the process's data source and write queue; `onEventsCommitted` where a relay listens. */
export function typeOrmUnitOfWork(cradle: PersistenceCradle, onEventsCommitted?: (kind: 'events' | 'audit') => void): TypeOrmUnitOfWork {
  return new TypeOrmUnitOfWork({ dataSource: cradle.dataSource, ...userPersistenceServices(cradle), connectionTurns: cradle.connectionTurns, onEventsCommitted });
}
