import path from 'node:path';
import { adminBootstrapProblems } from './admin-bootstrap';
import { type Env, given } from './environment';
import { type DatabaseConfig, KAFKA_VARIABLES, MAILER_VARIABLES, readVariables, SERVICE_VARIABLES } from './variables';

export type { DatabaseConfig } from './variables';

export interface AdminBootstrap {
  username: string;
  password: string;
  email: string;
  name?: string;
}

export interface Config {
  port: number;
  host: string;
  /** The management port: GET /metrics (Prometheus), apart from the API's public listener. 0: any free port. */
  metricsPort: number;
  dataDir: string;
  database: DatabaseConfig;
  migrateOnStart: boolean;
  /** Whether the API process runs the outbox relay (it may instead run as its own process). */
  relayEnabled: boolean;
  kafka: {
    brokers: string[];
    topic: string;
    /** KAFKA_AUDIT_TOPIC: the audit trail's entries (#23), on a topic of their own. */
    auditTopic: string;
    clientId: string;
    /** Partitions of the topics the migrate step creates (events, mailer DLQ); an existing topic is left as it is. */
    topicPartitions: number;
    /** Replication factor of the topics it creates; -1: the broker's default.replication.factor. */
    replicationFactor: number;
    /** KAFKA_TOPIC_RETENTION: retention.ms of the events topic it creates; -1 (the default): kept for good, so a consumer can read it from the beginning. */
    topicRetentionMs: number;
  } | null;
  smtpUrl: string | null;
  mailFrom: string;
  publicUrl: string;
  /** The application a person goes to once joined (APP_URL): linked from the invitation page; null: no link. */
  appUrl: string | null;
  admin: AdminBootstrap | null;
  jwt: {
    privateKeyPem: string | null;
    publicKeyPem: string | null;
    issuer: string;
    audience: string;
    /** RESOURCE_SERVERS: the other audiences a service account's token may be issued for (RFC 8707). */
    resources: string[];
    ttlSeconds: number;
    /** SERVICE_TOKEN_TTL: a service account's access token (client credentials grant). */
    serviceTokenTtlSeconds: number;
    /** Public keys of retired signing keys: their tokens still verify until they expire (key rotation). */
    previousPublicKeyPems: string[];
    /**
     * Public keys of the signing key to come: published and accepted before any replica signs with them, so that a
     * rolling switch to it never meets a replica that refuses its tokens (docs/SECURITY.md, "Rotating the signing key").
     */
    nextPublicKeyPems: string[];
  };
  /** Per-account lockout after failed sign-ins (LOCKOUT_*). */
  lockout: { threshold: number; baseWaitSeconds: number; maxWaitSeconds: number; secondFactorFailureLimit: number };
  /** Per-address requests a minute on sign-in and accept (0: off), and per-inviter invites and resends a minute. */
  rateLimits: { addressPerMinute: number; invitesPerMinute: number; passwordResetsPerEmailPerHour: number; clientAuthFailuresPerMinute: number };
  /** Proxies whose X-Forwarded-For is believed (fastify trustProxy); none: the socket's address. */
  trustedProxies: string[];
  /** Largest request head (request line and headers), in bytes; beyond it the answer is 431. */
  maxHeaderBytes: number;
  invitationTtlSeconds: number;
  /** PASSWORD_RESET_TTL: how long a password-reset link works. */
  passwordResetTtlSeconds: number;
  /** Refresh tokens (REFRESH_TOKEN_*): the family's absolute and the idle lifetime, and the reuse grace, in seconds. */
  refreshTokens: { absoluteTtlSeconds: number; idleTtlSeconds: number; reuseGraceSeconds: number };
  /** The admin console's session (CONSOLE_SESSION_*), in seconds, within the refresh tokens' bounds: RefreshSessionUseCase's `within`. */
  consoleSession: { sessionSeconds: number; idleSeconds: number };
  /** How long an authenticated user's lookup may be reused; 0 (the default) reads it on every request. */
  actorCacheTtlSeconds: number;
  /** SEARCH_TIME_LIMIT: the longest a prefix search's statement runs on MySQL/MariaDB (0: no limit). */
  searchTimeLimitSeconds: number;
  /** DATABASE_QUERY_TIMEOUT: the longest a MySQL/MariaDB statement may go unanswered (0: no limit). */
  databaseQueryTimeoutSeconds: number;
  /** REVOCATION_WINDOW in seconds: the revocation signal's window (0: off, the subject read at every request). */
  revocationWindowSeconds: number;
  logLevel: string;
  bodyLimitBytes: number;
  /** REQUEST_TIMEOUT and HEADERS_TIMEOUT, in seconds: a whole request, and its head, must have arrived by then (408). */
  requestTimeoutSeconds: number;
  headersTimeoutSeconds: number;
  /** MAX_CONNECTIONS, and MAX_CONNECTIONS_PER_ADDRESS (0: none; TRUSTED_PROXIES exempt): connections at once on PORT. */
  maxConnections: number;
  maxConnectionsPerAddress: number;
  /** Seconds /readyz answers 503 before the server stops accepting, so endpoints can drop it. */
  shutdownDrainSeconds: number;
  /** The audit trail (#23): AUDIT_TRAIL, AUDIT_RETENTION (seconds), AUDIT_SEAL_KEY. */
  audit: { enabled: boolean; retentionSeconds: number; sealKey?: string };
  /** MFA_ENCRYPTION_KEY (#24); unset: the embedded default's key under DATA_DIR. */
  mfaEncryptionKey?: string;
  /** MFA_REQUIRED_PERMISSIONS (#24): holders of any of them enroll a second factor before anything else. */
  mfaRequiredPermissions?: readonly string[];
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

const PEM_PUBLIC_KEY = /-----BEGIN PUBLIC KEY-----[A-Za-z0-9+/=\s]+?-----END PUBLIC KEY-----/g;

/**
 * Every variable the service reads (the table in ./variables.ts, with its type, default and bounds);
 * anything else in the environment is ignored. The MAILER_* ones are read by the mailer process only
 * (src/interfaces/mailer/mailer-settings.ts).
 */
export const CONFIG_VARIABLES = [...SERVICE_VARIABLES, ...KAFKA_VARIABLES, ...MAILER_VARIABLES] as const;

/** Reads and validates the environment once; every problem is reported, each naming its variable. */
export function loadConfig(env: Env = process.env): Config {
  const { values: v, problems } = readVariables(SERVICE_VARIABLES, env);

  if (v.METRICS_PORT !== 0 && v.METRICS_PORT === v.PORT) problems.push(`METRICS_PORT must differ from PORT (both ${v.PORT})`);
  const database = v.DATABASE_URL ?? { kind: 'sqlite', path: path.join(v.DATA_DIR, 'access-control.sqlite') };

  let kafka: Config['kafka'] = null;
  if (given(env, 'KAFKA_BROKERS') !== undefined) {
    const { values: k, problems: kafkaProblems } = readVariables(KAFKA_VARIABLES, env);
    problems.push(...kafkaProblems);
    kafka = {
      brokers: v.KAFKA_BROKERS ?? [],
      topic: k.KAFKA_TOPIC,
      auditTopic: k.KAFKA_AUDIT_TOPIC,
      clientId: k.KAFKA_CLIENT_ID,
      topicPartitions: k.KAFKA_TOPIC_PARTITIONS,
      replicationFactor: k.KAFKA_REPLICATION_FACTOR,
      topicRetentionMs: k.KAFKA_TOPIC_RETENTION,
    };
  }

  const publicUrl = v.PUBLIC_URL ?? `http://localhost:${v.PORT}`;

  const adminVars = ['ADMIN_USERNAME', 'ADMIN_PASSWORD', 'ADMIN_EMAIL'] as const;
  const adminSet = adminVars.filter((name) => v[name] !== undefined);
  let admin: AdminBootstrap | null = null;
  if (adminSet.length === 0 && v.ADMIN_NAME !== undefined) {
    problems.push(`ADMIN_NAME is set but ${adminVars.join(', ')} are not: set all of them to bootstrap an admin`);
  } else if (adminSet.length > 0 && adminSet.length < adminVars.length) {
    problems.push(`to bootstrap an admin set all of ${adminVars.join(', ')} (missing: ${adminVars.filter((n) => !adminSet.includes(n)).join(', ')})`);
  } else if (adminSet.length === adminVars.length) {
    admin = { username: v.ADMIN_USERNAME!, password: v.ADMIN_PASSWORD!, email: v.ADMIN_EMAIL!, name: v.ADMIN_NAME };
    problems.push(...adminBootstrapProblems(admin));
  }

  /** A value given inline or as the content of the file <name>_FILE names, not both. */
  const secret = (name: string, inline: string | undefined, fromFile: string | undefined): string | null => {
    if (inline !== undefined && given(env, `${name}_FILE`) !== undefined) problems.push(`set only one of ${name} and ${name}_FILE`);
    return inline ?? fromFile ?? null;
  };

  const privateKeyPem = secret('JWT_PRIVATE_KEY', v.JWT_PRIVATE_KEY, v.JWT_PRIVATE_KEY_FILE);
  const publicKeyPem = secret('JWT_PUBLIC_KEY', v.JWT_PUBLIC_KEY, v.JWT_PUBLIC_KEY_FILE);
  if ((privateKeyPem === null) !== (publicKeyPem === null)) {
    problems.push('set both JWT_PRIVATE_KEY and JWT_PUBLIC_KEY (or their _FILE forms), or neither');
  }

  /** A list of PEM public keys given inline or as a file; a value that holds none is a problem. */
  const publicKeys = (name: string, inline: string | undefined, fromFile: string | undefined): string[] => {
    const text = secret(name, inline, fromFile);
    const pems = text === null ? [] : (text.match(PEM_PUBLIC_KEY) ?? []);
    if (text !== null && pems.length === 0) problems.push(`${name} must hold one or more PEM public keys (-----BEGIN PUBLIC KEY-----…)`);
    return pems;
  };
  const previousPublicKeyPems = publicKeys('JWT_PREVIOUS_PUBLIC_KEYS', v.JWT_PREVIOUS_PUBLIC_KEYS, v.JWT_PREVIOUS_PUBLIC_KEYS_FILE);
  const nextPublicKeyPems = publicKeys('JWT_NEXT_PUBLIC_KEYS', v.JWT_NEXT_PUBLIC_KEYS, v.JWT_NEXT_PUBLIC_KEYS_FILE);

  const lockout = { threshold: v.LOCKOUT_THRESHOLD, baseWaitSeconds: v.LOCKOUT_BASE_WAIT, maxWaitSeconds: v.LOCKOUT_MAX_WAIT, secondFactorFailureLimit: v.MFA_MAX_FAILURES };
  if (lockout.maxWaitSeconds < lockout.baseWaitSeconds) problems.push('LOCKOUT_MAX_WAIT must not be shorter than LOCKOUT_BASE_WAIT');

  if (v.REFRESH_TOKEN_IDLE_TTL > v.REFRESH_TOKEN_TTL) problems.push('REFRESH_TOKEN_IDLE_TTL must not be longer than REFRESH_TOKEN_TTL');
  if (v.CONSOLE_SESSION_IDLE_TTL > v.CONSOLE_SESSION_TTL) problems.push('CONSOLE_SESSION_IDLE_TTL must not be longer than CONSOLE_SESSION_TTL');
  if (v.DATABASE_QUERY_TIMEOUT > 0 && (v.SEARCH_TIME_LIMIT === 0 || v.SEARCH_TIME_LIMIT >= v.DATABASE_QUERY_TIMEOUT)) {
    problems.push('SEARCH_TIME_LIMIT must be shorter than DATABASE_QUERY_TIMEOUT (a search past it would fail 503 instead of 422 SEARCH_TOO_BROAD)');
  }

  if (v.HEADERS_TIMEOUT > v.REQUEST_TIMEOUT) problems.push('HEADERS_TIMEOUT must not be longer than REQUEST_TIMEOUT (the head is part of the request)');
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    port: v.PORT,
    host: v.HOST,
    metricsPort: v.METRICS_PORT,
    dataDir: v.DATA_DIR,
    database,
    migrateOnStart: v.MIGRATE_ON_START,
    relayEnabled: v.RELAY_ENABLED,
    kafka,
    smtpUrl: v.SMTP_URL ?? null,
    mailFrom: v.MAIL_FROM,
    publicUrl,
    appUrl: v.APP_URL ?? null,
    admin,
    jwt: {
      privateKeyPem,
      publicKeyPem,
      issuer: v.JWT_ISSUER ?? publicUrl,
      audience: v.JWT_AUDIENCE,
      resources: v.RESOURCE_SERVERS ?? [],
      ttlSeconds: v.ACCESS_TOKEN_TTL,
      serviceTokenTtlSeconds: v.SERVICE_TOKEN_TTL,
      previousPublicKeyPems,
      nextPublicKeyPems,
    },
    lockout,
    rateLimits: {
      addressPerMinute: v.ADDRESS_RATE_LIMIT,
      invitesPerMinute: v.INVITE_RATE_LIMIT,
      passwordResetsPerEmailPerHour: v.PASSWORD_RESET_RATE_LIMIT,
      clientAuthFailuresPerMinute: v.CLIENT_AUTH_RATE_LIMIT,
    },
    trustedProxies: v.TRUSTED_PROXIES ?? [],
    maxHeaderBytes: v.MAX_HEADER_SIZE,
    invitationTtlSeconds: v.INVITATION_TTL,
    passwordResetTtlSeconds: v.PASSWORD_RESET_TTL,
    refreshTokens: {
      absoluteTtlSeconds: v.REFRESH_TOKEN_TTL,
      idleTtlSeconds: v.REFRESH_TOKEN_IDLE_TTL,
      reuseGraceSeconds: v.REFRESH_TOKEN_REUSE_GRACE,
    },
    // The console renews its access token when it is refused (ACCESS_TOKEN_TTL apart while it is used): a shorter idle
    // end would sign out someone at work. Either end comes no later than the refresh token policy's own.
    consoleSession: {
      sessionSeconds: Math.min(v.CONSOLE_SESSION_TTL, v.REFRESH_TOKEN_TTL),
      idleSeconds: Math.min(Math.max(v.CONSOLE_SESSION_IDLE_TTL, v.ACCESS_TOKEN_TTL), v.CONSOLE_SESSION_TTL, v.REFRESH_TOKEN_IDLE_TTL, v.REFRESH_TOKEN_TTL),
    },
    actorCacheTtlSeconds: v.ACTOR_CACHE_TTL,
    searchTimeLimitSeconds: v.SEARCH_TIME_LIMIT,
    databaseQueryTimeoutSeconds: v.DATABASE_QUERY_TIMEOUT,
    revocationWindowSeconds: v.REVOCATION_WINDOW,
    logLevel: v.LOG_LEVEL,
    bodyLimitBytes: v.BODY_LIMIT,
    requestTimeoutSeconds: v.REQUEST_TIMEOUT,
    headersTimeoutSeconds: v.HEADERS_TIMEOUT,
    maxConnections: v.MAX_CONNECTIONS,
    maxConnectionsPerAddress: v.MAX_CONNECTIONS_PER_ADDRESS,
    shutdownDrainSeconds: v.SHUTDOWN_DRAIN,
    audit: { enabled: v.AUDIT_TRAIL, retentionSeconds: v.AUDIT_RETENTION, ...(v.AUDIT_SEAL_KEY ? { sealKey: v.AUDIT_SEAL_KEY } : {}) },
    ...(v.MFA_ENCRYPTION_KEY ? { mfaEncryptionKey: v.MFA_ENCRYPTION_KEY } : {}),
    ...(v.MFA_REQUIRED_PERMISSIONS && v.MFA_REQUIRED_PERMISSIONS.length > 0 ? { mfaRequiredPermissions: v.MFA_REQUIRED_PERMISSIONS } : {}),
  };
}
