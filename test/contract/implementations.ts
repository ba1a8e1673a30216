import { TypeOrmAuditLog } from '../../src/infrastructure/persistence/typeorm/audit/typeorm-audit-log';
import { StandaloneTypeOrmAuditTrail } from '../../src/infrastructure/persistence/typeorm/audit/typeorm-audit-trail';
import { InMemoryAuditTrail } from '../support/fakes/in-memory-audit-trail';
import type { DataSource } from 'typeorm';
import { runMigrations } from '../../src/infrastructure/persistence/typeorm/migrate';
import { OutboxSchema } from '../../src/infrastructure/persistence/typeorm/records';
import { InMemoryInvitationRepository } from '../support/fakes/in-memory-invitation.repository';
import { InMemoryLoginAttempts } from '../support/fakes/in-memory-login-attempts';
import { InMemoryMfaStore } from '../support/fakes/in-memory-mfa.store';
import { InMemoryOutbox } from '../support/fakes/in-memory-outbox';
import { InMemoryProcessedEventStore } from '../support/fakes/in-memory-processed-event.store';
import { InMemoryUnitOfWork } from '../support/fakes/in-memory-unit-of-work';
import { InMemoryUserRepository } from '../support/fakes/in-memory-user.repository';
import { InMemoryRefreshTokenStore } from '../support/fakes/in-memory-refresh-token.store';
import { InMemoryRoleRepository } from '../support/fakes/in-memory-role.repository';
import { InMemoryServiceAccountRepository } from '../support/fakes/in-memory-service-account.repository';
import { TypeOrmServiceAccountRepository } from '../../src/infrastructure/persistence/typeorm/typeorm-service-account.repository';
import { SEEDED_PERMISSIONS, SEEDED_ROLES } from '../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { TypeOrmRoleRepository } from '../../src/infrastructure/persistence/typeorm/typeorm-role.repository';
import { TypeOrmRefreshTokenStore } from '../../src/infrastructure/persistence/typeorm/typeorm-refresh-token.store';
import { rebuildUserListIndex } from '../../src/infrastructure/persistence/typeorm/user-list-buckets';
import { TypeOrmUserRepository } from '../../src/infrastructure/persistence/typeorm/typeorm-user.repository';
import { UserListIndex } from '../../src/infrastructure/persistence/typeorm/user-list-index';
import { UserPageStatements } from '../../src/infrastructure/persistence/typeorm/user-page-statements';
import { userPersistenceServices } from '../../src/infrastructure/persistence-registrations';
import { TypeOrmAdapters } from '../support/typeorm-adapters';
import { ALL_TARGETS, type DatabaseTarget } from '../integration/persistence/database-targets';
import type { ContractStores } from './contract-kit';

/** The in-memory fakes, wired as the unit tests wire them: the unit of work commits into the plain stores. */
export async function inMemoryStores(): Promise<ContractStores> {
  const users = new InMemoryUserRepository();
  const outbox = new InMemoryOutbox();
  const invitations = new InMemoryInvitationRepository();
  const processedEvents = new InMemoryProcessedEventStore();
  const roles = new InMemoryRoleRepository([
    { id: SEEDED_ROLES.admin, name: 'admin', permissions: SEEDED_PERMISSIONS.map((p) => p.name) },
    { id: SEEDED_ROLES.member, name: 'member', permissions: [] },
  ]);
  const audit = new InMemoryAuditTrail();
  const serviceAccounts = new InMemoryServiceAccountRepository(audit);
  const loginAttempts = new InMemoryLoginAttempts(audit);
  const unitOfWork = new InMemoryUnitOfWork({ users, outbox, invitations, processedEvents, roles, serviceAccounts, audit, mfa: new InMemoryMfaStore(users, loginAttempts) });
  return {
    users,
    replicaUsers: () => users,
    invitations,
    processedEvents,
    unitOfWork,
    roles,
    refreshTokens: new InMemoryRefreshTokenStore(),
    serviceAccounts,
    storedEvents: async () => outbox.events.map((e) => ({ id: e.id, type: e.type, aggregateId: e.aggregateId, occurredAt: e.occurredAt, data: e.data })),
    storedSequences: async () => new Map(outbox.events.map((e) => [e.id, e.sequence])),
    auditTrail: audit,
    auditLog: audit,
    loginAttempts,
  };
}

/**
 * The databases to run on: every target of ALL_TARGETS, or those whose name contains one of the
 * comma-separated words of CONTRACT_TARGETS (case-insensitive; e.g. `sqlite`, `mariadb,mysql 8`).
 */
export function contractTargets(filter = process.env.CONTRACT_TARGETS): DatabaseTarget[] {
  const words = (filter ?? '').split(',').map((w) => w.trim().toLowerCase()).filter(Boolean);
  if (words.length === 0) return ALL_TARGETS;
  const chosen = ALL_TARGETS.filter((t) => words.some((w) => t.name.toLowerCase().includes(w)));
  if (chosen.length === 0) {
    throw new Error(`CONTRACT_TARGETS=${filter} names none of: ${ALL_TARGETS.map((t) => t.name).join(', ')}`);
  }
  return chosen;
}

/** Every table the contracts write, children first (invitations reference users). */
const CONTRACT_TABLES = ['login_attempts', 'webauthn_challenges', 'webauthn_credentials', 'mfa_challenges', 'mfa_recovery_codes', 'mfa_factors', 'audit_events', 'service_account_secrets', 'service_accounts', 'client_assertion_jtis', 'invitations', 'password_resets', 'refresh_tokens', 'processed_events', 'outbox_events', 'event_sequences', 'users'];

/**
 * Opens `target` once for the enclosing describe (migrated; destroyed after it) and returns the
 * factory of its stores: each call empties the tables the contracts write and builds the adapters
 * afresh (a new process's services, so no cached user total outlives a test).
 */
export function typeOrmStoresOn(target: DatabaseTarget): () => Promise<ContractStores> {
  let dataSource: DataSource | undefined;
  let dispose: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    ({ dataSource, dispose } = await target.open());
    await runMigrations(dataSource);
  });

  afterAll(async () => {
    await dispose?.();
  });

  return async () => {
    if (!dataSource) throw new Error(`${target.name}: the database is not open`);
    const db = dataSource;
    for (const table of CONTRACT_TABLES) await db.query(`DELETE FROM ${table}`);
    // The roles a contract created (the built-in ones stay, as the migration seeded them).
    await db.query('DELETE FROM role_permissions WHERE role_id IN (SELECT id FROM roles WHERE built_in = 0)');
    await db.query('DELETE FROM roles WHERE built_in = 0');
    // The page index of the users just deleted: built again, empty (what the migration builds on an empty table).
    await rebuildUserListIndex(db);
    const adapters = new TypeOrmAdapters(db);
    return {
      users: adapters.users(),
      // Another process's repository: its own page index copy (and statements). SQLite's one connection keeps the
      // one write queue (a second queue on it would interleave transactions; no second process shares the file).
      replicaUsers: () =>
        new TypeOrmUserRepository({
          manager: db.manager,
          ...userPersistenceServices(adapters.services),
          userListIndex: new UserListIndex({ dataSource: db, sqliteWriteQueue: adapters.services.sqliteWriteQueue }),
          userPageStatements: new UserPageStatements({ dataSource: db, searchTimeLimitSeconds: adapters.searchTimeLimitSeconds, connectionTurns: adapters.services.connectionTurns }),
        }),
      invitations: adapters.invitations(),
      processedEvents: adapters.processedEvents(),
      unitOfWork: adapters.unitOfWork(),
      roles: new TypeOrmRoleRepository({ manager: db.manager, sqliteWriteQueue: adapters.services.sqliteWriteQueue }),
      refreshTokens: new TypeOrmRefreshTokenStore({ dataSource: db, sqliteWriteQueue: adapters.services.sqliteWriteQueue }),
      serviceAccounts: new TypeOrmServiceAccountRepository({ manager: db.manager, sqliteWriteQueue: adapters.services.sqliteWriteQueue }),
      storedEvents: async () =>
        (await db.getRepository(OutboxSchema).find()).map((row) => ({
          id: row.id,
          type: row.type,
          aggregateId: row.aggregateId,
          occurredAt: row.occurredAt,
          data: JSON.parse(row.payload) as unknown,
        })),
      storedSequences: async () =>
        new Map((await db.getRepository(OutboxSchema).find()).map((row) => [row.id, Number(row.aggregateSequence)])),
      auditTrail: new StandaloneTypeOrmAuditTrail({ manager: db.manager, sqliteWriteQueue: adapters.services.sqliteWriteQueue }),
      auditLog: new TypeOrmAuditLog({ dataSource: db, sqliteWriteQueue: adapters.services.sqliteWriteQueue }),
      loginAttempts: adapters.loginAttempts(),
    };
  };
}
