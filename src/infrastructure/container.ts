import { asClass, asFunction, asValue, type AwilixContainer, createContainer, InjectionMode, type Resolver } from 'awilix';
import type { Actor } from '../application/auth/actor';
import { AuthenticateActorUseCase } from '../application/auth/authenticate-actor.use-case';
import { SignInUseCase } from '../application/auth/sign-in.use-case';
import { SignOutUseCase } from '../application/auth/sign-out.use-case';
import { IntrospectTokenUseCase } from '../application/auth/introspect-token.use-case';
import { RevokeTokenUseCase } from '../application/auth/revoke-token.use-case';
import type { AccessTokenVerifier } from '../application/ports/access-token-verifier.port';
import { JwtAccessTokenVerifier } from './crypto/jwt-access-token-verifier';
import { ChangeOwnPasswordUseCase } from '../application/auth/change-own-password.use-case';
import { GetOwnAccountUseCase } from '../application/auth/get-own-account.use-case';
import { ConfirmPasswordResetUseCase } from '../application/password-reset/confirm-password-reset.use-case';
import { InspectPasswordResetUseCase } from '../application/password-reset/inspect-password-reset.use-case';
import { RequestPasswordResetUseCase } from '../application/password-reset/request-password-reset.use-case';
import { RefreshSessionUseCase } from '../application/auth/refresh-session.use-case';
import { type RefreshTokenPolicy, SessionIssuer } from '../application/auth/session-issuer';
import type { RefreshTokenStore } from '../application/ports/refresh-token-store.port';
import { TypeOrmRefreshTokenStore } from './persistence/typeorm/typeorm-refresh-token.store';
import type { TokenSubject } from '../application/auth/authenticate-actor.use-case';
import type { LoginAttempts } from '../application/ports/login-attempts.port';
import type { RateLimitCounter } from '../application/ports/rate-limit-counter.port';
import type { CommonPasswords } from '../application/ports/common-passwords.port';
import { FileCommonPasswords } from './security/file-common-passwords';
import type { LockoutPolicy } from '../domain/users/lockout-policy';
import { InviteUserUseCase } from '../application/invitations/invite-user.use-case';
import { ListPermissionsUseCase } from '../application/permissions/list-permissions.use-case';
import type { IdGenerator } from '../application/ports/id-generator.port';
import type { PasswordHasher } from '../application/ports/password-hasher.port';
import type { PermissionRepository } from '../application/ports/permission-repository.port';
import type { RoleRepository } from '../application/ports/role-repository.port';
import type { TokenIssuer } from '../application/ports/token-issuer.port';
import type { UnitOfWork } from '../application/ports/unit-of-work.port';
import type { UserRepository } from '../application/ports/user-repository.port';
import type { BootstrapRecord } from '../application/ports/bootstrap-record.port';
import { AcceptInvitationUseCase } from '../application/invitations/accept-invitation.use-case';
import { InspectInvitationUseCase } from '../application/invitations/inspect-invitation.use-case';
import { ResendInvitationUseCase } from '../application/invitations/resend-invitation.use-case';
import { RevokeInvitationUseCase } from '../application/invitations/revoke-invitation.use-case';
import type { InvitationRepository } from '../application/ports/invitation-repository.port';
import { BootstrapAdminUseCase } from '../application/users/bootstrap-admin.use-case';
import { CreateAdminUseCase } from '../application/users/create-admin.use-case';
import { ListUsersUseCase } from '../application/users/list-users.use-case';
import { DeactivateUserUseCase } from '../application/users/deactivate-user.use-case';
import { DeleteUserUseCase } from '../application/users/delete-user.use-case';
import { GetUserUseCase } from '../application/users/get-user.use-case';
import { ReactivateUserUseCase } from '../application/users/reactivate-user.use-case';
import { UpdateUserUseCase } from '../application/users/update-user.use-case';
import { CreateRoleUseCase } from '../application/roles/create-role.use-case';
import { DeleteRoleUseCase } from '../application/roles/delete-role.use-case';
import { GetRoleUseCase } from '../application/roles/get-role.use-case';
import { ListRolesUseCase } from '../application/roles/list-roles.use-case';
import { UpdateRoleUseCase } from '../application/roles/update-role.use-case';
import type { ServiceAccountCredentials } from '../application/ports/service-account-credentials.port';
import { AddServiceAccountSecretUseCase } from '../application/service-accounts/add-service-account-secret.use-case';
import { CreateServiceAccountUseCase } from '../application/service-accounts/create-service-account.use-case';
import { DeleteServiceAccountSecretUseCase } from '../application/service-accounts/delete-service-account-secret.use-case';
import { DeleteServiceAccountUseCase } from '../application/service-accounts/delete-service-account.use-case';
import {
  GetServiceAccountUseCase,
  ListServiceAccountSecretsUseCase,
  ListServiceAccountsUseCase,
} from '../application/service-accounts/read-service-accounts.use-case';
import { ReplaceServiceAccountKeysUseCase } from '../application/service-accounts/replace-service-account-keys.use-case';
import { UpdateServiceAccountUseCase } from '../application/service-accounts/update-service-account.use-case';
import { IssueServiceTokenUseCase } from '../application/service-accounts/issue-service-token.use-case';
import { TokenAudiences } from '../application/service-accounts/token-audiences';
import { ServiceAccountCredentialVerifier } from './crypto/service-account-credential-verifier';
import { TypeOrmServiceAccountRepository } from './persistence/typeorm/typeorm-service-account.repository';
import type { Config } from './config/config';
import { Argon2PasswordHasher } from './crypto/argon2-password-hasher';
import { JwtTokenIssuer } from './crypto/jwt-token-issuer';
import type { LocalSigningKeys } from './crypto/local-signing-key';
import { signingKeysOf } from './configured-keys';
import { type SigningKey, type VerificationKey, verificationKeysFor } from './crypto/signing-keys';
import { describeError, type Logger } from './logging/logger';
import type { EventPublisher, InProcessEventBus } from './messaging/cloud-event';
import { CommitSignal } from './messaging/commit-signal';
import { createInProcessEventBus } from './messaging/in-process-event-bus';
import { KafkaEventPublisher } from './messaging/kafka-event-publisher';
import { OutboxRelay } from './messaging/outbox-relay';
import { TypeOrmInvitationRepository } from './persistence/typeorm/typeorm-invitation.repository';
import { TypeOrmPermissionRepository } from './persistence/typeorm/typeorm-permission.repository';
import { TypeOrmRoleRepository } from './persistence/typeorm/typeorm-role.repository';
import { TypeOrmBootstrapRecordStore } from './persistence/typeorm/typeorm-bootstrap-record.store';
import { TypeOrmUserRepository } from './persistence/typeorm/typeorm-user.repository';
import { TypeOrmLoginAttempts } from './persistence/typeorm/typeorm-login-attempts.store';
import { TypeOrmRateLimitCounter } from './persistence/typeorm/typeorm-rate-limit-counter.store';
import { InstrumentedEventPublisher } from './observability/instrumented-event-publisher';
import { mysqlPoolProbe, outboxBacklogProbe } from './observability/outbox-backlog-probe';
import { ServiceMetrics } from './observability/service-metrics';
import { CachedActorResolver } from './caching/cached-actor-resolver';
import { CachedPermissionRepository } from './caching/cached-permission-repository';
import { CachedRoleRepository } from './caching/cached-role-repository';
import { type InvitationMailCradle, invitationMailRegistrations } from './mailer-container';
import { type PersistenceCradle, persistenceRegistrations, typeOrmUnitOfWork, userPersistenceServices } from './persistence-registrations';
import { type AuditCradle, auditRegistrations } from './audit-registrations';
import { type RevocationCradle, revocationRegistrations } from './revocation-registrations';
import { type MfaCradle, mfaRegistrations } from './mfa-registrations';
import { Readiness } from './system/readiness';
import { UuidV7IdGenerator } from './system/uuid-v7-id-generator';

export interface Cradle extends PersistenceCradle, InvitationMailCradle, AuditCradle, RevocationCradle, MfaCradle {
  config: Config;
  logger: Logger;
  idGenerator: IdGenerator;
  passwordHasher: PasswordHasher;
  /** The configured pair (JWT_PRIVATE_KEY) or the embedded default's, with what it retired. */
  signingKeys: LocalSigningKeys;
  signingKey: SigningKey;
  /** The current signing key's public key, then the one to come (JWT_NEXT_PUBLIC_KEYS) and retired ones (JWT_PREVIOUS_PUBLIC_KEYS): the JWKS. */
  verificationKeys: VerificationKey[];
  loginAttempts: LoginAttempts;
  lockoutPolicy: LockoutPolicy;
  /** The per-address and per-inviter throttles' counts, shared by every replica through the database. */
  rateLimitCounter: RateLimitCounter;
  signOut: SignOutUseCase;
  commonPasswords: CommonPasswords;
  tokenIssuer: TokenIssuer;
  userRepository: UserRepository;
  /** The role rows themselves, uncached: one per process, so that every revision read shares its batches. */
  roleCatalogue: TypeOrmRoleRepository;
  roleRepository: RoleRepository;
  permissionRepository: PermissionRepository;
  unitOfWork: UnitOfWork;
  invitationRepository: InvitationRepository;
  readiness: Readiness;
  commitSignal: CommitSignal;
  /** Kafka when KAFKA_BROKERS is set; otherwise the in-process bus (also registered as `inProcessBus`). */
  eventPublisher: EventPublisher;
  inProcessBus: InProcessEventBus | null;
  outboxRelay: OutboxRelay;
  /** Prometheus metrics of this process (GET /metrics). */
  metrics: ServiceMetrics;
  signIn: SignInUseCase;
  authenticateActor: { execute(token: TokenSubject): Promise<Actor | null> };
  listUsers: ListUsersUseCase;
  inviteUser: InviteUserUseCase;
  listPermissions: ListPermissionsUseCase;
  createAdmin: CreateAdminUseCase;
  /** The admin from ADMIN_* at start, once per database (the record below). */
  bootstrapAdmin: BootstrapAdminUseCase;
  bootstrapRecord: BootstrapRecord;
  acceptInvitation: AcceptInvitationUseCase;
  inspectInvitation: InspectInvitationUseCase;
  resendInvitation: ResendInvitationUseCase;
  revokeInvitation: RevokeInvitationUseCase;
  getUser: GetUserUseCase;
  updateUser: UpdateUserUseCase;
  deactivateUser: DeactivateUserUseCase;
  reactivateUser: ReactivateUserUseCase;
  deleteUser: DeleteUserUseCase;
  listRoles: ListRolesUseCase;
  getRole: GetRoleUseCase;
  createRole: CreateRoleUseCase;
  updateRole: UpdateRoleUseCase;
  deleteRole: DeleteRoleUseCase;
  /** Service accounts (#21): read, changed in a unit of work, and their credentials' store (secrets' last use, assertion jtis). */
  serviceAccountRepository: TypeOrmServiceAccountRepository;
  serviceAccountCredentialStore: TypeOrmServiceAccountRepository;
  /** Verifies a service account's secret or client assertion (the token endpoint's client authentication). */
  serviceAccountCredentials: ServiceAccountCredentials;
  listServiceAccounts: ListServiceAccountsUseCase;
  getServiceAccount: GetServiceAccountUseCase;
  createServiceAccount: CreateServiceAccountUseCase;
  updateServiceAccount: UpdateServiceAccountUseCase;
  deleteServiceAccount: DeleteServiceAccountUseCase;
  addServiceAccountSecret: AddServiceAccountSecretUseCase;
  listServiceAccountSecrets: ListServiceAccountSecretsUseCase;
  deleteServiceAccountSecret: DeleteServiceAccountSecretUseCase;
  replaceServiceAccountKeys: ReplaceServiceAccountKeysUseCase;
  /** The client credentials grant's token (#21). */
  issueServiceToken: IssueServiceTokenUseCase;
  tokenAudiences: TokenAudiences;
  /** Refresh tokens (issue #10), stored hashed, in families; their lifetimes from REFRESH_TOKEN_*. */
  refreshTokenStore: RefreshTokenStore;
  refreshTokenPolicy: RefreshTokenPolicy;
  sessionIssuer: SessionIssuer;
  refreshSession: RefreshSessionUseCase;
  changeOwnPassword: ChangeOwnPasswordUseCase;
  getOwnAccount: GetOwnAccountUseCase;
  /** Password reset by mail (issue #10); the mailer's side is `issuePasswordReset`. */
  requestPasswordReset: RequestPasswordResetUseCase;
  inspectPasswordReset: InspectPasswordResetUseCase;
  confirmPasswordReset: ConfirmPasswordResetUseCase;
  /** Revocation (RFC 7009) and introspection (RFC 7662) (#21); access tokens checked as the bearer authentication does. */
  accessTokenVerifier: AccessTokenVerifier;
  revokeToken: RevokeTokenUseCase;
  introspectToken: IntrospectTokenUseCase;
}

export type AppContainer = AwilixContainer<Cradle>;

/** Registrations a test may swap (a fixed clock, a faster hasher, …). */
export type Overrides = Partial<{ [K in keyof Cradle]: Resolver<Cradle[K]> }>;

/** The one composition root of a process. Nothing else resolves from it but the process entrypoints. */
export function buildContainer(config: Config, logger: Logger, overrides: Overrides = {}): AppContainer {
  const container = createContainer<Cradle>({ injectionMode: InjectionMode.PROXY, strict: true });

  container.register({
    config: asValue(config),
    logger: asValue(logger),
    ...persistenceRegistrations(config),
    // The embedded default mails invitations from this process (in-process bus).
    ...invitationMailRegistrations(config, logger),
    ...auditRegistrations(config),
    ...revocationRegistrations(config),
    ...mfaRegistrations(config, logger),
    idGenerator: asClass(UuidV7IdGenerator).singleton(),
    passwordHasher: asClass(Argon2PasswordHasher).singleton(),
    signingKeys: asFunction(() => signingKeysOf(config, logger)).singleton(),
    signingKey: asFunction(({ signingKeys }: Cradle) => signingKeys.current).singleton(),
    verificationKeys: asFunction(({ signingKeys }: Cradle) =>
      verificationKeysFor(signingKeys.current, [
        { variable: 'JWT_NEXT_PUBLIC_KEYS', pems: config.jwt.nextPublicKeyPems },
        { variable: 'JWT_PREVIOUS_PUBLIC_KEYS', pems: [...config.jwt.previousPublicKeyPems, ...signingKeys.retiredPublicKeyPems] },
      ]),
    ).singleton(),
    lockoutPolicy: asValue(config.lockout),
    loginAttempts: asFunction(
      ({ dataSource, sqliteWriteQueue, loginAttemptKeys, logger }: Cradle) =>
        new TypeOrmLoginAttempts({
          dataSource,
          sqliteWriteQueue,
          loginAttemptKeys,
          onPurgeFailed: (error) => logger.warn({ reason: describeError(error) }, 'login-attempts purge failed; retrying at the next purge'),
        }),
    ).singleton(),
    rateLimitCounter: asFunction(
      ({ dataSource, sqliteWriteQueue, logger }: Cradle) =>
        new TypeOrmRateLimitCounter({
          dataSource,
          sqliteWriteQueue,
          onPurgeFailed: (error) => logger.warn({ reason: describeError(error) }, 'rate-limit purge failed; retrying at the next purge'),
        }),
    ).singleton(),
    signOut: asClass(SignOutUseCase).singleton(),
    commonPasswords: asFunction(() => new FileCommonPasswords()).singleton(),
    tokenIssuer: asFunction(({ signingKey, clock }: Cradle) => new JwtTokenIssuer(signingKey, config.jwt, clock)).singleton(),
    userRepository: asFunction(
      (cradle: Cradle) => new TypeOrmUserRepository({ manager: cradle.dataSource.manager, ...userPersistenceServices(cradle) }),
    ).singleton(),
    // Roles are tiny: cached whole, read again whenever the role catalogue's revision moved on (any replica's change).
    roleCatalogue: asFunction(
      ({ dataSource, sqliteWriteQueue }: Cradle) => new TypeOrmRoleRepository({ manager: dataSource.manager, sqliteWriteQueue }),
    ).singleton(),
    // While the revocation signal is trusted, its poll's revision stands in for the per-read one.
    roleRepository: asFunction(
      ({ roleCatalogue, revocationWatch }: Cradle) =>
        new CachedRoleRepository({
          findAllDetails: () => roleCatalogue.findAllDetails(),
          revision: async () => revocationWatch.current()?.rolesRevision ?? roleCatalogue.revision(),
        }),
    ).singleton(),
    // The permission catalogue is written only by migrations: cached whole, paged in memory.
    permissionRepository: asFunction(
      ({ dataSource }: Cradle) => new CachedPermissionRepository(new TypeOrmPermissionRepository(dataSource)),
    ).singleton(),
    commitSignal: asClass(CommitSignal).singleton(),
    unitOfWork: asFunction((cradle: Cradle) => typeOrmUnitOfWork(cradle, (kind) => cradle.commitSignal.notify(kind))).singleton(),
    inProcessBus: asFunction(() => (config.kafka ? null : createInProcessEventBus())).singleton(),
    eventPublisher: asFunction(({ inProcessBus, logger, metrics }: Cradle) =>
      new InstrumentedEventPublisher(
        config.kafka
          ? new KafkaEventPublisher({ brokers: config.kafka.brokers, topic: config.kafka.topic, auditTopic: config.kafka.auditTopic, clientId: config.kafka.clientId, logger })
          : inProcessBus!,
        metrics,
      ),
    )
      .singleton()
      .disposer((publisher) => publisher.close()),
    outboxRelay: asFunction(({ dataSource, eventPublisher, logger, sqliteWriteQueue, clock, commitSignal }: Cradle) => {
      const relay = new OutboxRelay({ dataSource, publisher: eventPublisher, logger, sqliteWriteQueue, clock });
      commitSignal.subscribe((kind) => relay.nudge(kind));
      return relay;
    })
      .singleton()
      .disposer((relay) => relay.stop()),
    invitationRepository: asFunction(
      ({ dataSource, plainInsertStatements, sqliteWriteQueue }: Cradle) =>
        new TypeOrmInvitationRepository({ manager: dataSource.manager, plainInsertStatements, sqliteWriteQueue }),
    ).singleton(),
    readiness: asFunction(({ dataSource }: Cradle) => new Readiness(dataSource)).singleton(),
    metrics: asFunction(({ dataSource, sqliteWriteQueue, logger }: Cradle) => {
      const metrics = new ServiceMetrics({ logger });
      metrics.trackOutbox(outboxBacklogProbe(dataSource, sqliteWriteQueue));
      metrics.trackPool(mysqlPoolProbe(dataSource));
      return metrics;
    }).singleton(),
    signIn: asClass(SignInUseCase).singleton(),
    // A request's subject is served from memory while the revocation signal is trusted (REVOCATION_WINDOW, #26):
    // a change that ends or narrows access answers only once every replica's trusted signal has seen it. When
    // the signal is lost (or off), every request reads its subject, unless ACTOR_CACHE_TTL > 0 trades that for
    // speed: another replica may then accept a signed-out token that long.
    authenticateActor: asFunction(({ userRepository, roleRepository, roleCatalogue, userChangeNotices, serviceAccountRepository, revocationWatch }: Cradle) => {
      // Service tokens (#21) resolve to their account, read as a user is: disabled, deleted or a new role applies at the next request.
      const direct = new AuthenticateActorUseCase({ userRepository, roleRepository, serviceAccountRepository });
      if (config.actorCacheTtlSeconds <= 0 && config.revocationWindowSeconds <= 0) return direct;
      // A role change (any replica's) still takes effect on the next request: entries carry the role catalogue's revision.
      const resolver = new CachedActorResolver(direct, {
        ttlMs: config.actorCacheTtlSeconds * 1000,
        rolesRevision: () => roleCatalogue.revision(),
        // A service account's version, read at each request: any replica's change to it applies at the next one.
        serviceAccountVersion: (id) => serviceAccountRepository.versionOf(id),
        // No read at all while the revocation signal is trusted (#26); without it, ACTOR_CACHE_TTL as before.
        ...(config.revocationWindowSeconds > 0 ? { signal: revocationWatch } : {}),
      });
      userChangeNotices.subscribe((userId) => resolver.invalidate(userId));
      return resolver;
    }).singleton(),
    listUsers: asClass(ListUsersUseCase).singleton(),
    inviteUser: asClass(InviteUserUseCase).singleton(),
    listPermissions: asClass(ListPermissionsUseCase).singleton(),
    createAdmin: asClass(CreateAdminUseCase).singleton(),
    bootstrapAdmin: asClass(BootstrapAdminUseCase).singleton(),
    bootstrapRecord: asFunction(
      ({ dataSource, sqliteWriteQueue }: Cradle) => new TypeOrmBootstrapRecordStore({ manager: dataSource.manager, sqliteWriteQueue }),
    ).singleton(),
    acceptInvitation: asClass(AcceptInvitationUseCase).singleton(),
    inspectInvitation: asClass(InspectInvitationUseCase).singleton(),
    resendInvitation: asClass(ResendInvitationUseCase).singleton(),
    revokeInvitation: asClass(RevokeInvitationUseCase).singleton(),
    getUser: asClass(GetUserUseCase).singleton(),
    updateUser: asClass(UpdateUserUseCase).singleton(),
    deactivateUser: asClass(DeactivateUserUseCase).singleton(),
    reactivateUser: asClass(ReactivateUserUseCase).singleton(),
    deleteUser: asClass(DeleteUserUseCase).singleton(),
    listRoles: asClass(ListRolesUseCase).singleton(),
    getRole: asClass(GetRoleUseCase).singleton(),
    createRole: asClass(CreateRoleUseCase).singleton(),
    updateRole: asClass(UpdateRoleUseCase).singleton(),
    deleteRole: asClass(DeleteRoleUseCase).singleton(),
    serviceAccountRepository: asFunction(
      ({ dataSource, sqliteWriteQueue }: Cradle) => new TypeOrmServiceAccountRepository({ manager: dataSource.manager, sqliteWriteQueue }),
    ).singleton(),
    serviceAccountCredentialStore: asFunction(({ serviceAccountRepository }: Cradle) => serviceAccountRepository).singleton(),
    serviceAccountCredentials: asClass(ServiceAccountCredentialVerifier).singleton(),
    listServiceAccounts: asClass(ListServiceAccountsUseCase).singleton(),
    getServiceAccount: asClass(GetServiceAccountUseCase).singleton(),
    createServiceAccount: asClass(CreateServiceAccountUseCase).singleton(),
    updateServiceAccount: asClass(UpdateServiceAccountUseCase).singleton(),
    deleteServiceAccount: asClass(DeleteServiceAccountUseCase).singleton(),
    addServiceAccountSecret: asClass(AddServiceAccountSecretUseCase).singleton(),
    listServiceAccountSecrets: asClass(ListServiceAccountSecretsUseCase).singleton(),
    deleteServiceAccountSecret: asClass(DeleteServiceAccountSecretUseCase).singleton(),
    replaceServiceAccountKeys: asClass(ReplaceServiceAccountKeysUseCase).singleton(),
    tokenAudiences: asValue(new TokenAudiences(config.jwt)),
    issueServiceToken: asClass(IssueServiceTokenUseCase).singleton(),
    refreshTokenStore: asFunction(
      ({ dataSource, sqliteWriteQueue, logger }: Cradle) =>
        new TypeOrmRefreshTokenStore({
          dataSource,
          sqliteWriteQueue,
          onPurgeFailed: (error) => logger.warn({ reason: describeError(error) }, 'refresh-token purge failed; retrying at the next purge'),
        }),
    ).singleton(),
    refreshTokenPolicy: asValue(config.refreshTokens),
    sessionIssuer: asClass(SessionIssuer).singleton(),
    refreshSession: asClass(RefreshSessionUseCase).singleton(),
    changeOwnPassword: asClass(ChangeOwnPasswordUseCase).singleton(),
    getOwnAccount: asClass(GetOwnAccountUseCase).singleton(),
    requestPasswordReset: asClass(RequestPasswordResetUseCase).singleton(),
    inspectPasswordReset: asClass(InspectPasswordResetUseCase).singleton(),
    confirmPasswordReset: asClass(ConfirmPasswordResetUseCase).singleton(),
    accessTokenVerifier: asFunction(({ verificationKeys }: Cradle) => new JwtAccessTokenVerifier(verificationKeys, config.jwt)).singleton(),
    revokeToken: asFunction(
      ({ accessTokenVerifier, refreshTokenStore, secretTokens, userRepository, roleRepository, serviceAccountRepository, clock, signOut, auditRecorder }: Cradle) =>
        new RevokeTokenUseCase({
          auditRecorder,
          accessTokenVerifier,
          refreshTokenStore,
          secretTokens,
          userRepository,
          // Never the cached resolver: whether a service's token is still active is answered for every replica, at once.
          authenticateActor: new AuthenticateActorUseCase({ userRepository, roleRepository, serviceAccountRepository }),
          clock,
          signOut,
        }),
    ).singleton(),
    introspectToken: asFunction(
      ({ accessTokenVerifier, refreshTokenStore, secretTokens, userRepository, roleRepository, serviceAccountRepository }: Cradle) =>
        new IntrospectTokenUseCase({
          accessTokenVerifier,
          refreshTokenStore,
          secretTokens,
          userRepository,
          // Never the cached resolver (ACTOR_CACHE_TTL): an introspection answers for every replica, at once.
          authenticateActor: new AuthenticateActorUseCase({ userRepository, roleRepository, serviceAccountRepository }),
          roleRepository,
        }),
    ).singleton(),
  });
  container.register(overrides as Record<string, Resolver<unknown>>);
  return container;
}
