import type { ContractOptions, MakeStores } from './contract-kit';
import type { DatabaseTarget } from '../integration/persistence/database-targets';
import { contractTargets, inMemoryStores, typeOrmStoresOn } from './implementations';
import { describeAuditTrailContract } from './audit-trail.contract';
import { describeInvitationRepositoryContract } from './invitation-repository.contract';
import { describeMfaStoreContract } from './mfa-store.contract';
import { describeOutboxContract } from './outbox.contract';
import { describePasskeyStoreContract } from './passkey-store.contract';
import { describeProcessedEventStoreContract } from './processed-event-store.contract';
import { describeRefreshTokenStoreContract } from './refresh-token-store.contract';
import { describeRoleStoreContract } from './role-store.contract';
import { describeServiceAccountStoreContract } from './service-account-store.contract';
import { describeSingleUseTokenStoreContract } from './single-use-token-store.contract';
import { describeUnitOfWorkContract } from './unit-of-work.contract';
import { describeUserAdministrationContract } from './user-administration.contract';
import { describeUserListPagesContract } from './user-list-pages.contract';
import { describeUserRepositoryContract } from './user-repository.contract';

/**
 * One contract per port, run against the in-memory fakes (test/support/fakes) and against the
 * TypeORM adapters on every real database (CONTRACT_TARGETS=sqlite narrows it while developing):
 * a behaviour the application relies on holds on both, or a case here says which side differs.
 */
export function describeEveryContract(names: Record<'users' | 'invitations' | 'outbox' | 'processedEvents' | 'unitOfWork' | 'refreshTokens' | 'passwordResets' | 'roles' | 'serviceAccounts' | 'audit' | 'mfa', string>, makeStores: MakeStores, options: ContractOptions = {}): void {
  describeUserRepositoryContract(names.users, makeStores, options);
  describeUserAdministrationContract(names.users, makeStores, options);
  describeUserListPagesContract(names.users, makeStores, options);
  describeSingleUseTokenStoreContract(names.invitations, 'invitations', makeStores, options);
  describeInvitationRepositoryContract(names.invitations, makeStores, options);
  describeOutboxContract(names.outbox, makeStores, options);
  describeProcessedEventStoreContract(names.processedEvents, makeStores, options);
  describeUnitOfWorkContract(names.unitOfWork, makeStores, options);
  describeRefreshTokenStoreContract(names.refreshTokens, makeStores, options);
  describeSingleUseTokenStoreContract(names.passwordResets, 'passwordResets', makeStores, options);
  describeRoleStoreContract(names.roles, makeStores, options);
  describeServiceAccountStoreContract(names.serviceAccounts, makeStores, options);
  describeAuditTrailContract(names.audit, makeStores, options);
  describeMfaStoreContract(names.mfa, makeStores, options);
  describePasskeyStoreContract(names.mfa, makeStores, options);
}

/*
 * Where the fakes and the adapters differ on something no port promises (so no case here; settle
 * it in the port's doc comment first, then add the case):
 * - invitations.replaceForUser for a user that does not exist: the database refuses it (a raw
 *   QueryFailedError, foreign key); the fake stores it.
 * (Settled: users.delete and users.erase take the user's invitation with them on both sides, and
 * users.update to a taken e-mail is EmailAlreadyTakenError on both: see the port and its contract.)
 */

/** The fakes' contracts: what the unit tests' doubles promise. */
export function describeFakeContracts(): void {
  describe('in-memory fakes', () => {
    describeEveryContract(
      {
        users: 'InMemoryUserRepository',
        invitations: 'InMemoryInvitationRepository',
        outbox: 'InMemoryOutbox',
        processedEvents: 'InMemoryProcessedEventStore',
        unitOfWork: 'InMemoryUnitOfWork',
        refreshTokens: 'InMemoryRefreshTokenStore',
        passwordResets: 'InMemoryPasswordResetStore',
        roles: 'InMemoryRoleRepository',
        serviceAccounts: 'InMemoryServiceAccountRepository',
        audit: 'InMemoryAuditTrail',
        mfa: 'InMemoryMfaStore',
      },
      inMemoryStores,
    );
  });
}

/**
 * The adapters' contracts on the targets of `chosen` that CONTRACT_TARGETS keeps: each test file runs its own
 * databases, so the runner spreads them over its workers. A file left with none skips (and says so).
 */
export function describeTypeOrmContracts(label: string, chosen: (target: DatabaseTarget) => boolean): void {
  const targets = contractTargets().filter(chosen);
  if (targets.length === 0) {
    describe.skip(`TypeORM adapters on ${label}`, () => it('is not among CONTRACT_TARGETS', () => undefined));
    return;
  }
  describe.each(targets)('TypeORM adapters on $name', (target) => {
    describeEveryContract(
      {
        users: 'TypeOrmUserRepository',
        invitations: 'TypeOrmInvitationRepository',
        outbox: 'TypeOrmOutbox',
        processedEvents: 'TypeOrmProcessedEventStore',
        unitOfWork: 'TypeOrmUnitOfWork',
        refreshTokens: 'TypeOrmRefreshTokenStore',
        passwordResets: 'TypeOrmPasswordResetStore',
        roles: 'TypeOrmRoleRepository',
        serviceAccounts: 'TypeOrmServiceAccountRepository',
        audit: 'TypeOrmAuditTrail',
        mfa: 'TypeOrmMfaStore',
      },
      typeOrmStoresOn(target),
    );
  });
}
