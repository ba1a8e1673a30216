import { InitialSchema1763700000000 } from './1763700000000-initial-schema';
import { Invitations1763800000000 } from './1763800000000-invitations';
import { OutboxRequestId1763900000000 } from './1763900000000-outbox-request-id';
import { SecurityHardening1764100000000 } from './1764100000000-security-hardening';
import { RateLimitCounters1764200000000 } from './1764200000000-rate-limit-counters';
import { UserAdministration1764300000000 } from './1764300000000-user-administration';
import { RoleAdministration1764400000000 } from './1764400000000-role-administration';
import { RefreshTokens1764500000000 } from './1764500000000-refresh-tokens';
import { PasswordResets1764600000000 } from './1764600000000-password-resets';
import { NormaliseIdentifiers1764700000000 } from './1764700000000-normalise-identifiers';
import { EventSequence1764800000000 } from './1764800000000-event-sequence';
import { BootstrapRecord1764900000000 } from './1764900000000-bootstrap-record';
import { ServiceAccounts1765000000000 } from './1765000000000-service-accounts';
import { TokenIntrospection1765100000000 } from './1765100000000-token-introspection';
import { UserListBuckets1765200000000 } from './1765200000000-user-list-buckets';
import { AuditTrail1765300000000 } from './1765300000000-audit-trail';
import { RevocationEpochs1765400000000 } from './1765400000000-revocation-epochs';
import { SecondFactors1765500000000 } from './1765500000000-second-factors';
import { Passkeys1765600000000 } from './1765600000000-passkeys';
import { MfaTicketPassword1765650000000 } from './1765650000000-mfa-ticket-password';
import { UserListSlots1765700000000 } from './1765700000000-user-list-slots';
import { SignInTicketUse1765800000000 } from './1765800000000-sign-in-ticket-use';
import { DropRoleIdIndex1765900000000 } from './1765900000000-drop-role-id-index';
import { ServiceAccountTokensValidFrom1766000000000 } from './1766000000000-service-account-tokens-valid-from';
import { AuditCheckpointSeal1766100000000 } from './1766100000000-audit-checkpoint-seal';
import { EmailDomainKeys1766200000000 } from './1766200000000-email-domain-keys';
import { KeyedLoginAttempts1766300000000 } from './1766300000000-keyed-login-attempts';
import { AuditEntrySeal1766400000000 } from './1766400000000-audit-entry-seal';
import { SecondFactorFailures1766500000000 } from './1766500000000-second-factor-failures';
import { LoginAttemptLastClaim1766600000000 } from './1766600000000-login-attempt-last-claim';
import { ProcessedEventsRetention1766700000000 } from './1766700000000-processed-events-retention';
import { AuditRequestIdLength1766800000000 } from './1766800000000-audit-request-id-length';
import { RecoveryCodeSalt1766900000000 } from './1766900000000-recovery-code-salt';
import { AuditHeadSeal1767000000000 } from './1767000000000-audit-head-seal';
import { ErasedRowsKeepMember1767100000000 } from './1767100000000-erased-rows-keep-member';
import { RefreshTokenFamilyInToken1767200000000 } from './1767200000000-refresh-token-family-in-token';
import { SigningKeysInUse1767300000000 } from './1767300000000-signing-keys-in-use';

/** In order of application. Listed explicitly so the compiled service needs no glob loading. */
export const MIGRATIONS = [
  InitialSchema1763700000000,
  Invitations1763800000000,
  OutboxRequestId1763900000000,
  SecurityHardening1764100000000,
  RateLimitCounters1764200000000,
  UserAdministration1764300000000,
  RoleAdministration1764400000000,
  RefreshTokens1764500000000,
  PasswordResets1764600000000,
  NormaliseIdentifiers1764700000000,
  EventSequence1764800000000,
  BootstrapRecord1764900000000,
  ServiceAccounts1765000000000,
  TokenIntrospection1765100000000,
  UserListBuckets1765200000000,
  AuditTrail1765300000000,
  RevocationEpochs1765400000000,
  SecondFactors1765500000000,
  Passkeys1765600000000,
  MfaTicketPassword1765650000000,
  UserListSlots1765700000000,
  SignInTicketUse1765800000000,
  DropRoleIdIndex1765900000000,
  ServiceAccountTokensValidFrom1766000000000,
  AuditCheckpointSeal1766100000000,
  EmailDomainKeys1766200000000,
  KeyedLoginAttempts1766300000000,
  AuditEntrySeal1766400000000,
  SecondFactorFailures1766500000000,
  LoginAttemptLastClaim1766600000000,
  ProcessedEventsRetention1766700000000,
  AuditRequestIdLength1766800000000,
  RecoveryCodeSalt1766900000000,
  AuditHeadSeal1767000000000,
  ErasedRowsKeepMember1767100000000,
  RefreshTokenFamilyInToken1767200000000,
  SigningKeysInUse1767300000000,
];
