import type { AuditLog, AuditTrail } from '../../src/application/ports/audit-trail.port';
import { createHash, randomUUID } from 'node:crypto';
import type { InvitationRepository } from '../../src/application/ports/invitation-repository.port';
import type { ProcessedEventStore } from '../../src/application/ports/processed-event-store.port';
import type { RefreshTokenStore } from '../../src/application/ports/refresh-token-store.port';
import type { RoleRepository } from '../../src/application/ports/role-repository.port';
import type { ServiceAccountCredentialStore, ServiceAccountRepository } from '../../src/application/ports/service-account-repository.port';
import type { LoginAttempts } from '../../src/application/ports/login-attempts.port';
import type { UnitOfWork } from '../../src/application/ports/unit-of-work.port';
import type { UserRepository } from '../../src/application/ports/user-repository.port';
import type { Invitation } from '../../src/domain/invitations/invitation';
import type { Role } from '../../src/domain/roles/role';
import type { DomainEvent } from '../../src/domain/shared/domain-event';
import { Email } from '../../src/domain/users/email';
import { User } from '../../src/domain/users/user';
import { Username } from '../../src/domain/users/username';
import { SEEDED_ROLES } from '../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { UuidV7IdGenerator } from '../../src/infrastructure/system/uuid-v7-id-generator';

/**
 * What one implementation of the persistence ports gives a contract test: every store empty,
 * the plain stores reading (and writing) what is committed, outside any unit of work.
 */
export interface ContractStores {
  users: UserRepository;
  /** The users as another process on the same store sees them (another replica: its own caches and copies). */
  replicaUsers(): UserRepository;
  invitations: InvitationRepository;
  processedEvents: ProcessedEventStore;
  unitOfWork: UnitOfWork;
  refreshTokens: RefreshTokenStore;
  /** The roles as committed: the built-in admin and member, as the migration seeds them, and no other. */
  roles: RoleRepository;
  /** Service accounts as committed (none at first), and the credential store over them. */
  serviceAccounts: ServiceAccountRepository & ServiceAccountCredentialStore;
  /**
   * The events the outbox holds, committed, in any order. The port has no read (the relay reads
   * the table): this is the one probe each implementation supplies for itself.
   */
  storedEvents(): Promise<StoredEvent[]>;
  /** The number the outbox gave each committed event among its aggregate's events, by event id (the relay's order). */
  storedSequences(): Promise<Map<string, number>>;
  /** The audit trail written on its own (entries in a unit of work go through `scope.audit`), and read back. */
  auditTrail: AuditTrail;
  auditLog: AuditLog;
  /** The lockout counters, where the second step's tickets are used up (the MfaStore's ticket read reads them). */
  loginAttempts: LoginAttempts;
}

/** An outbox event as stored: `data` as JSON carries it. */
export interface StoredEvent {
  id: string;
  type: string;
  aggregateId: string;
  occurredAt: Date;
  data: unknown;
}

/** Builds a fresh, empty set of stores; called before every test. */
export type MakeStores<K extends keyof ContractStores = keyof ContractStores> = () => Promise<Pick<ContractStores, K>>;

export interface ContractOptions {
  /**
   * Cases this implementation is known to fail, by exact title, each with the reason: they run as
   * `it.failing`, so the suite goes red when the divergence is fixed and the entry must go.
   */
  knownDivergences?: Readonly<Record<string, string>>;
}

/** `it`, or `it.failing` for a case listed in `knownDivergences`. */
export function contractIt(options: ContractOptions = {}) {
  return (title: string, test: () => Promise<void>, timeoutMs?: number): void => {
    const reason = options.knownDivergences?.[title];
    if (reason === undefined) it(title, test, timeoutMs);
    else it.failing(`${title} [KNOWN DIVERGENCE: ${reason}]`, test, timeoutMs);
  };
}

const ids = new UuidV7IdGenerator();

/** A UUIDv7: time-ordered, so ids taken one after another sort in the order they were taken. */
export const newId = (): string => ids.next();

/** The seeded member role (users.role_id references roles on a real database). */
export const member: Role = { id: SEEDED_ROLES.member, name: 'member', permissions: [] };

/** Distinct per call: e-mails and usernames that no other test in the run uses. */
export function unique(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

export function pendingUser(email = `${unique('pending')}@example.com`, at = new Date('2026-01-31T12:00:00.123Z')): User {
  return User.invite({ id: newId(), email: Email.parse(email), role: member, invitedBy: newId(), now: at, newId });
}

export function joinedUser(username = unique('joined'), email = `${username}@example.com`): User {
  return User.createJoined({
    id: newId(),
    email: Email.parse(email),
    name: 'Zoë 🚀 Ünïcode',
    username: Username.parse(username),
    passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA',
    role: member,
    now: new Date('2026-02-01T00:00:00.007Z'),
  });
}

/** Makes a pending user joined, as accepting an invitation does. */
export function join(user: User, username: string, now = new Date('2026-03-01T00:00:00.001Z')): void {
  user.join({ name: 'Joiner', username: Username.parse(username), passwordHash: 'h', role: member, now, newId });
}

/** A 64-hex token hash (SHA-256), as the invitations store them. */
export function tokenHash(seed: string = randomUUID()): string {
  return createHash('sha256').update(seed, 'utf8').digest('hex');
}

export function invitationFor(userId: string, overrides: Partial<Invitation> = {}): Invitation {
  return {
    userId,
    tokenHash: tokenHash(),
    createdAt: new Date('2026-01-01T00:00:00.001Z'),
    expiresAt: new Date('2026-01-08T00:00:00.999Z'),
    ...overrides,
  };
}

/** An event such as an aggregate records: the outbox takes any type and any JSON-able data. */
export function eventAbout(aggregateId: string, data: object = { user_id: aggregateId }, type = 'UserInvited'): DomainEvent {
  return { id: newId(), type, aggregateId, occurredAt: new Date('2026-01-31T12:00:00.123Z'), data };
}

export function byId<T extends { id: string }>(items: readonly T[]): T[] {
  return [...items].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
