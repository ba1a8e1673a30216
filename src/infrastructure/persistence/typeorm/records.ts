import { EntitySchema } from 'typeorm';
import { MFA_ENTITY_SCHEMAS } from './mfa-records';
import { ClientAssertionJtiSchema, ServiceAccountSchema, ServiceAccountSecretSchema } from './service-account-records';

/** Row shapes. Domain classes stay free of mapping concerns; repositories translate. */
export interface RoleRecord {
  id: string;
  name: string;
  /** The lower-cased name (roleNameKey), unique: names are unique case-insensitively. */
  nameKey: string | null;
  /** 1 for the seeded `admin` and `member`. */
  builtIn: number;
  version: number;
  createdAt: Date;
  updatedAt: Date | null;
  updatedBy: string | null;
}

export interface PermissionRecord {
  id: string;
  group: string;
  name: string;
}

export interface RolePermissionRecord {
  roleId: string;
  permissionId: string;
}

/** `deleted`: an erased user's remaining row, which no read returns. */
export type UserRecordStatus = 'pending' | 'active' | 'deactivated' | 'deleted';

export interface UserRecord {
  id: string;
  /** Null only once the user is erased. */
  email: string | null;
  emailKey: string | null;
  name: string | null;
  /** The lower-cased name prefix search compares with (nameSearchKey). */
  nameKey: string | null;
  username: string | null;
  usernameKey: string | null;
  passwordHash: string | null;
  roleId: string;
  invitedAt: Date;
  invitedBy: string | null;
  joinedAt: Date | null;
  updatedAt: Date | null;
  updatedBy: string | null;
  tokenVersion: number;
  status: UserRecordStatus;
  version: number;
}

export interface OutboxRecord {
  id: string;
  aggregateId: string;
  type: string;
  payload: string;
  occurredAt: Date;
  publishedAt: Date | null;
  attempts: number;
  /** x-request-id of the request that caused the event, if any. */
  requestId: string | null;
  /** The event's place among its aggregate's events (1, 2, 3, …), taken from `event_sequences` in its transaction. Null on rows of an older version. */
  aggregateSequence: number | null;
}

export interface InvitationRecord {
  userId: string;
  tokenHash: string;
  createdAt: Date;
  expiresAt: Date;
  usedAt: Date | null;
}

export interface LoginAttemptRecord {
  usernameKey: string;
  failures: number;
  lockedUntil: Date | null;
  lockouts: number;
  /** The issue time (microseconds, SignInTicketClaims.issuedAtMicros) up to which the account's sign-in tickets are used up; null when none was. */
  ticketsUsedThrough: string | number | null;
  /** Second-factor codes refused on right-password tickets since the account's last success (ClaimOptions.factorFailure). */
  factorFailures: number;
  /** When the counters last counted a claim: the purge forgets rows idle for long (loginAttemptsIdleSeconds). */
  lastClaimAt: Date | null;
}

export interface RateLimitCounterRecord {
  /** SHA-256 (hex) of the limit's key: no client address or user id in clear. */
  counterKey: string;
  windowEnd: Date;
  hits: number;
}

/** A refresh token: only its SHA-256 is stored (RefreshTokenStore). */
export interface RefreshTokenRecord {
  id: string;
  familyId: string;
  userId: string;
  tokenHash: string;
  tokenVersion: number;
  createdAt: Date;
  expiresAt: Date;
  idleExpiresAt: Date;
  usedAt: Date | null;
  revokedAt: Date | null;
  /** 1: the token names its family (RefreshToken.familyInToken). */
  familyInToken: number;
}

export interface ProcessedEventRecord {
  consumer: string;
  eventId: string;
  processedAt: Date;
}

const id = { type: String, length: 36, primary: true } as const;
const datetime = { type: 'datetime', precision: 3 } as const;

export const RoleSchema = new EntitySchema<RoleRecord>({
  name: 'Role',
  tableName: 'roles',
  columns: {
    id,
    name: { type: String, length: 64 },
    nameKey: { type: String, length: 64, nullable: true, name: 'name_key' },
    builtIn: { type: 'int', name: 'built_in', default: 0 },
    version: { type: 'int', default: 1 },
    createdAt: { ...datetime, name: 'created_at' },
    updatedAt: { ...datetime, name: 'updated_at', nullable: true },
    updatedBy: { type: String, length: 36, nullable: true, name: 'updated_by' },
  },
});

export const PermissionSchema = new EntitySchema<PermissionRecord>({
  name: 'Permission',
  tableName: 'permissions',
  columns: {
    id,
    group: { type: String, length: 64, name: 'group_name' },
    name: { type: String, length: 128 },
  },
});

export const RolePermissionSchema = new EntitySchema<RolePermissionRecord>({
  name: 'RolePermission',
  tableName: 'role_permissions',
  columns: {
    roleId: { type: String, length: 36, primary: true, name: 'role_id' },
    permissionId: { type: String, length: 36, primary: true, name: 'permission_id' },
  },
});

export const UserSchema = new EntitySchema<UserRecord>({
  name: 'User',
  tableName: 'users',
  columns: {
    id,
    email: { type: String, length: 254, nullable: true },
    emailKey: { type: String, length: 254, nullable: true, name: 'email_key' },
    name: { type: String, length: 200, nullable: true },
    nameKey: { type: String, length: 200, nullable: true, name: 'name_key' },
    username: { type: String, length: 64, nullable: true },
    usernameKey: { type: String, length: 64, nullable: true, name: 'username_key' },
    passwordHash: { type: String, length: 255, nullable: true, name: 'password_hash' },
    roleId: { type: String, length: 36, name: 'role_id' },
    invitedAt: { ...datetime, name: 'invited_at' },
    invitedBy: { type: String, length: 36, nullable: true, name: 'invited_by' },
    joinedAt: { ...datetime, nullable: true, name: 'joined_at' },
    updatedAt: { ...datetime, nullable: true, name: 'updated_at' },
    updatedBy: { type: String, length: 36, nullable: true, name: 'updated_by' },
    tokenVersion: { type: Number, default: 0, name: 'token_version' },
    status: { type: String, length: 16, default: 'active' },
    version: { type: Number, default: 1 },
  },
});

export const OutboxSchema = new EntitySchema<OutboxRecord>({
  name: 'OutboxEvent',
  tableName: 'outbox_events',
  columns: {
    id,
    aggregateId: { type: String, length: 36, name: 'aggregate_id' },
    type: { type: String, length: 64 },
    payload: { type: 'text' },
    occurredAt: { ...datetime, name: 'occurred_at' },
    publishedAt: { ...datetime, nullable: true, name: 'published_at' },
    attempts: { type: Number, default: 0 },
    requestId: { type: String, length: 128, nullable: true, name: 'request_id' },
    aggregateSequence: { type: Number, nullable: true, name: 'aggregate_sequence' },
  },
});

/** The columns of a table of single-use links keyed by user (`invitations`, `password_resets`). */
const singleUseTokenColumns = {
  userId: { type: String, length: 36, primary: true, name: 'user_id' },
  tokenHash: { type: String, length: 64, name: 'token_hash' },
  createdAt: { ...datetime, name: 'created_at' },
  expiresAt: { ...datetime, name: 'expires_at' },
  usedAt: { ...datetime, nullable: true, name: 'used_at' },
} as const;

export const InvitationSchema = new EntitySchema<InvitationRecord>({
  name: 'Invitation',
  tableName: 'invitations',
  columns: singleUseTokenColumns,
});

export const ProcessedEventSchema = new EntitySchema<ProcessedEventRecord>({
  name: 'ProcessedEvent',
  tableName: 'processed_events',
  columns: {
    consumer: { type: String, length: 64, primary: true },
    eventId: { type: String, length: 36, primary: true, name: 'event_id' },
    processedAt: { ...datetime, name: 'processed_at' },
  },
});

export const LoginAttemptSchema = new EntitySchema<LoginAttemptRecord>({
  name: 'LoginAttempt',
  tableName: 'login_attempts',
  columns: {
    usernameKey: { type: String, length: 64, primary: true, name: 'username_key' },
    failures: { type: Number, default: 0 },
    lockedUntil: { ...datetime, nullable: true, name: 'locked_until' },
    lockouts: { type: Number, default: 0 },
    ticketsUsedThrough: { type: 'bigint', nullable: true, name: 'tickets_used_through' },
    factorFailures: { type: Number, default: 0, name: 'factor_failures' },
    lastClaimAt: { ...datetime, nullable: true, name: 'last_claim_at' },
  },
});

export const RateLimitCounterSchema = new EntitySchema<RateLimitCounterRecord>({
  name: 'RateLimitCounter',
  tableName: 'rate_limit_counters',
  columns: {
    counterKey: { type: String, length: 64, primary: true, name: 'counter_key' },
    windowEnd: { ...datetime, name: 'window_end' },
    hits: { type: Number },
  },
});

export const RefreshTokenSchema = new EntitySchema<RefreshTokenRecord>({
  name: 'RefreshToken',
  tableName: 'refresh_tokens',
  columns: {
    id,
    familyId: { type: String, length: 36, name: 'family_id' },
    userId: { type: String, length: 36, name: 'user_id' },
    tokenHash: { type: String, length: 64, name: 'token_hash' },
    tokenVersion: { type: Number, name: 'token_version' },
    createdAt: { ...datetime, name: 'created_at' },
    expiresAt: { ...datetime, name: 'expires_at' },
    idleExpiresAt: { ...datetime, name: 'idle_expires_at' },
    usedAt: { ...datetime, nullable: true, name: 'used_at' },
    revokedAt: { ...datetime, nullable: true, name: 'revoked_at' },
    familyInToken: { type: 'int', name: 'family_in_token', default: 0 },
  },
});

/** Password-reset tokens (issue #10): the shape of `invitations`, one row per user. */
export const PasswordResetSchema = new EntitySchema<InvitationRecord>({
  name: 'PasswordReset',
  tableName: 'password_resets',
  columns: singleUseTokenColumns,
});

export const ENTITY_SCHEMAS = [
  LoginAttemptSchema,
  RateLimitCounterSchema,
  RoleSchema,
  PermissionSchema,
  RolePermissionSchema,
  UserSchema,
  OutboxSchema,
  InvitationSchema,
  ProcessedEventSchema,
  RefreshTokenSchema,
  PasswordResetSchema,
  ServiceAccountSchema,
  ServiceAccountSecretSchema,
  ClientAssertionJtiSchema,
  ...MFA_ENTITY_SCHEMAS,
];
