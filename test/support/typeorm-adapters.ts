import { asValue, createContainer, InjectionMode } from 'awilix';
import type { DataSource, EntityManager } from 'typeorm';
import type { Clock } from '../../src/application/ports/clock.port';
import type { Config } from '../../src/infrastructure/config/config';
import {
  type PersistenceCradle,
  persistenceRegistrations,
  typeOrmUnitOfWork,
  userPersistenceServices,
} from '../../src/infrastructure/persistence-registrations';
import { TypeOrmInvitationRepository } from '../../src/infrastructure/persistence/typeorm/typeorm-invitation.repository';
import { TypeOrmLoginAttempts, type TypeOrmLoginAttemptsDeps } from '../../src/infrastructure/persistence/typeorm/typeorm-login-attempts.store';
import { TypeOrmProcessedEventStore } from '../../src/infrastructure/persistence/typeorm/typeorm-processed-event.store';
import {
  TypeOrmRateLimitCounter,
  type TypeOrmRateLimitCounterDeps,
} from '../../src/infrastructure/persistence/typeorm/typeorm-rate-limit-counter.store';
import type { TypeOrmUnitOfWork } from '../../src/infrastructure/persistence/typeorm/typeorm-unit-of-work';
import { TypeOrmUserRepository } from '../../src/infrastructure/persistence/typeorm/typeorm-user.repository';
import { SystemClock } from '../../src/infrastructure/system/system-clock';

/**
 * The TypeORM adapters on one data source as one process has them: the per-process services
 * (SQLite's write queue, the user total, the prepared statements) are registered exactly as the
 * composition roots register them (`persistenceRegistrations`), once per instance of this class.
 * A test that needs a fresh user total or queue makes a new instance; nothing is reset by hand.
 */
/** The second factors' key of the adapters under test (what their lockout rows are keyed by). */
export const TEST_MFA_KEY = Buffer.alloc(32, 5);

export class TypeOrmAdapters {
  readonly services: PersistenceCradle;
  /** SEARCH_TIME_LIMIT of these adapters: its default unless a test bounds prefix searches otherwise. */
  readonly searchTimeLimitSeconds: number;

  constructor(
    readonly dataSource: DataSource,
    options: { clock?: Clock; searchTimeLimitSeconds?: number } = {},
  ) {
    const container = createContainer<PersistenceCradle & { clock: Clock; mfaKey: Buffer }>({ injectionMode: InjectionMode.PROXY, strict: true });
    // The data source belongs to the test (it opens and destroys it): registered as a value, no disposer.
    this.searchTimeLimitSeconds = options.searchTimeLimitSeconds ?? 2;
    const registrations = persistenceRegistrations({ database: {} as Config['database'], searchTimeLimitSeconds: this.searchTimeLimitSeconds });
    // The key the lockout's row keys derive from (the api's is MFA_ENCRYPTION_KEY's): one for every test.
    container.register({ ...registrations, dataSource: asValue(dataSource), clock: asValue(options.clock ?? new SystemClock()), mfaKey: asValue(TEST_MFA_KEY) });
    this.services = container.cradle;
  }

  users(manager: EntityManager = this.dataSource.manager): TypeOrmUserRepository {
    return new TypeOrmUserRepository({ manager, ...userPersistenceServices(this.services) });
  }

  invitations(manager: EntityManager = this.dataSource.manager): TypeOrmInvitationRepository {
    const { plainInsertStatements, sqliteWriteQueue } = this.services;
    return new TypeOrmInvitationRepository({ manager, plainInsertStatements, sqliteWriteQueue });
  }

  processedEvents(manager: EntityManager = this.dataSource.manager): TypeOrmProcessedEventStore {
    const { plainInsertStatements, sqliteWriteQueue } = this.services;
    return new TypeOrmProcessedEventStore({ manager, plainInsertStatements, sqliteWriteQueue });
  }

  unitOfWork(onEventsCommitted?: () => void): TypeOrmUnitOfWork {
    return typeOrmUnitOfWork(this.services, onEventsCommitted);
  }

  loginAttempts(options: Pick<TypeOrmLoginAttemptsDeps, 'onPurgeFailed' | 'purgeEveryMs'> = {}): TypeOrmLoginAttempts {
    return new TypeOrmLoginAttempts({ dataSource: this.dataSource, sqliteWriteQueue: this.services.sqliteWriteQueue, loginAttemptKeys: this.services.loginAttemptKeys, ...options });
  }

  rateLimitCounter(options: Omit<TypeOrmRateLimitCounterDeps, 'dataSource' | 'sqliteWriteQueue'> = {}): TypeOrmRateLimitCounter {
    return new TypeOrmRateLimitCounter({ dataSource: this.dataSource, sqliteWriteQueue: this.services.sqliteWriteQueue, ...options });
  }
}
