import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseDurationSeconds } from './duration';

export type DatabaseConfig =
  | { kind: 'mysql' | 'mariadb'; url: string }
  | { kind: 'sqlite'; path: string };

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
    clientId: string;
    /** Partitions of the topics the migrate step creates (events, mailer DLQ); an existing topic is left as it is. */
    topicPartitions: number;
    /** Replication factor of the topics it creates; -1: the broker's default.replication.factor. */
    replicationFactor: number;
  } | null;
  smtpUrl: string | null;
  mailFrom: string;
  publicUrl: string;
  admin: AdminBootstrap | null;
  jwt: {
    privateKeyPem: string | null;
    publicKeyPem: string | null;
    issuer: string;
    audience: string;
    ttlSeconds: number;
    /** Public keys of retired signing keys: their tokens still verify until they expire (key rotation). */
    previousPublicKeyPems: string[];
  };
  /** Per-account lockout after failed sign-ins (LOCKOUT_*). */
  lockout: { threshold: number; baseWaitSeconds: number; maxWaitSeconds: number };
  /** Per-address requests a minute on sign-in and accept (0: off), and per-inviter invites and resends a minute. */
  rateLimits: { addressPerMinute: number; invitesPerMinute: number };
  /** Proxies whose X-Forwarded-For is believed (fastify trustProxy); none: the socket's address. */
  trustedProxies: string[];
  /** Largest request head (request line and headers), in bytes; beyond it the answer is 431. */
  maxHeaderBytes: number;
  invitationTtlSeconds: number;
  /** How long an authenticated user's lookup may be reused; 0 (the default) reads it on every request. */
  actorCacheTtlSeconds: number;
  logLevel: string;
  bodyLimitBytes: number;
  /** Seconds /readyz answers 503 before the server stops accepting, so endpoints can drop it. */
  shutdownDrainSeconds: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

const PEM_PUBLIC_KEY = /-----BEGIN PUBLIC KEY-----[A-Za-z0-9+/=\s]+?-----END PUBLIC KEY-----/g;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Every variable the service reads; anything else in the environment is ignored. */
export const CONFIG_VARIABLES = [
  'PORT', 'HOST', 'METRICS_PORT', 'DATA_DIR', 'DATABASE_URL', 'MIGRATE_ON_START', 'RELAY_ENABLED', 'KAFKA_BROKERS', 'KAFKA_TOPIC',
  'KAFKA_CLIENT_ID', 'KAFKA_TOPIC_PARTITIONS', 'KAFKA_REPLICATION_FACTOR', 'SMTP_URL', 'MAIL_FROM', 'PUBLIC_URL', 'ADMIN_USERNAME', 'ADMIN_PASSWORD',
  'ADMIN_EMAIL', 'ADMIN_NAME', 'JWT_PRIVATE_KEY', 'JWT_PRIVATE_KEY_FILE', 'JWT_PUBLIC_KEY',
  'JWT_PUBLIC_KEY_FILE', 'JWT_ISSUER', 'JWT_AUDIENCE', 'ACCESS_TOKEN_TTL', 'INVITATION_TTL',
  'LOG_LEVEL', 'BODY_LIMIT', 'SHUTDOWN_DRAIN',
  'JWT_PREVIOUS_PUBLIC_KEYS', 'JWT_PREVIOUS_PUBLIC_KEYS_FILE', 'LOCKOUT_THRESHOLD', 'LOCKOUT_BASE_WAIT',
  'LOCKOUT_MAX_WAIT', 'ACTOR_CACHE_TTL', 'ADDRESS_RATE_LIMIT', 'INVITE_RATE_LIMIT', 'TRUSTED_PROXIES', 'MAX_HEADER_SIZE',
  // Read by the mailer process only (src/interfaces/mailer/mailer-settings.ts).
  'MAILER_GROUP_ID', 'MAILER_DLQ_TOPIC', 'MAILER_RETRY_MAX', 'MAILER_CONCURRENCY', 'MAILER_IN_FLIGHT', 'MAILER_METRICS_PORT',
] as const;

type Env = Record<string, string | undefined>;

/** Reads and validates the environment once; every problem is reported, each naming its variable. */
export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const get = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };

  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const raw = get(name);
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return Number(raw);
  };

  const duration = (name: string, fallback: string, { min = 1 } = {}): number => {
    const raw = get(name) ?? fallback;
    const seconds = parseDurationSeconds(raw);
    if (seconds === null || seconds < min) {
      problems.push(`${name} must be a duration of at least ${min}s, such as 90s, 15m, 12h or 7d (got "${raw}")`);
      return parseDurationSeconds(fallback) ?? min;
    }
    return seconds;
  };

  const boolean = (name: string, fallback: boolean): boolean => {
    const raw = get(name)?.toLowerCase();
    if (raw === undefined) return fallback;
    if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
    if (['0', 'false', 'no', 'off'].includes(raw)) return false;
    problems.push(`${name} must be true or false (got "${raw}")`);
    return fallback;
  };

  const secret = (name: string): string | null => {
    const inline = env[name];
    const file = get(`${name}_FILE`);
    if (inline && file) problems.push(`set only one of ${name} and ${name}_FILE`);
    if (inline) return inline.replace(/\\n/g, '\n');
    if (!file) return null;
    try {
      return readFileSync(file, 'utf8');
    } catch {
      problems.push(`${name}_FILE: cannot read "${file}"`);
      return null;
    }
  };

  const port = integer('PORT', 3000, 0, 65535);
  const host = get('HOST') ?? '0.0.0.0';
  const metricsPort = integer('METRICS_PORT', 9465, 0, 65535);
  if (metricsPort !== 0 && metricsPort === port) problems.push(`METRICS_PORT must differ from PORT (both ${port})`);
  const dataDir = path.resolve(get('DATA_DIR') ?? './data');

  const database = parseDatabaseUrl(get('DATABASE_URL'), dataDir, problems);

  const brokersRaw = get('KAFKA_BROKERS');
  let kafka: Config['kafka'] = null;
  if (brokersRaw !== undefined) {
    const brokers = brokersRaw.split(',').map((b) => b.trim()).filter(Boolean);
    const bad = brokers.filter((b) => {
      const match = /^([A-Za-z0-9.\-_[\]:]+):(\d{1,5})$/.exec(b);
      return !match || Number(match[2]) < 1 || Number(match[2]) > 65535;
    });
    if (brokers.length === 0 || bad.length > 0) {
      problems.push(`KAFKA_BROKERS must be a comma-separated list of host:port (bad: "${bad.join(',') || brokersRaw}")`);
    }
    const topic = get('KAFKA_TOPIC') ?? 'access-control.user-events.v1';
    if (!/^[A-Za-z0-9._-]{1,249}$/.test(topic)) problems.push(`KAFKA_TOPIC must be a Kafka topic name: 1 to 249 of letters, digits, ".", "_", "-" (got "${topic}")`);
    const replicationRaw = get('KAFKA_REPLICATION_FACTOR') ?? '-1';
    if (!/^(-1|\d+)$/.test(replicationRaw) || Number(replicationRaw) === 0 || Number(replicationRaw) > 32767) {
      problems.push(`KAFKA_REPLICATION_FACTOR must be -1 (the broker's default) or an integer from 1 to 32767 (got "${replicationRaw}")`);
    }
    kafka = {
      brokers,
      topic,
      clientId: get('KAFKA_CLIENT_ID') ?? 'access-control',
      topicPartitions: integer('KAFKA_TOPIC_PARTITIONS', 6, 1, 10_000),
      replicationFactor: Number(replicationRaw),
    };
  }

  const smtpUrl = get('SMTP_URL') ?? null;
  if (smtpUrl !== null && !/^smtps?:\/\/[^/]+/.test(smtpUrl)) {
    problems.push('SMTP_URL must look like smtp://user:pass@host:port or smtps://…');
  }

  let publicUrl = get('PUBLIC_URL') ?? `http://localhost:${port}`;
  try {
    const url = new URL(publicUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('protocol');
    publicUrl = publicUrl.replace(/\/+$/, '');
  } catch {
    problems.push(`PUBLIC_URL must be an http(s) URL (got "${publicUrl}")`);
  }

  const adminVars = ['ADMIN_USERNAME', 'ADMIN_PASSWORD', 'ADMIN_EMAIL'] as const;
  const adminSet = adminVars.filter((name) => get(name) !== undefined);
  let admin: AdminBootstrap | null = null;
  if (adminSet.length === 0 && get('ADMIN_NAME') !== undefined) {
    problems.push(`ADMIN_NAME is set but ${adminVars.join(', ')} are not: set all of them to bootstrap an admin`);
  } else if (adminSet.length > 0 && adminSet.length < adminVars.length) {
    problems.push(`to bootstrap an admin set all of ${adminVars.join(', ')} (missing: ${adminVars.filter((n) => !adminSet.includes(n)).join(', ')})`);
  } else if (adminSet.length === adminVars.length) {
    admin = {
      username: get('ADMIN_USERNAME')!,
      // A password is taken as given: surrounding spaces are part of it.
      password: env.ADMIN_PASSWORD!,
      email: get('ADMIN_EMAIL')!,
      name: get('ADMIN_NAME'),
    };
  }

  const privateKeyPem = secret('JWT_PRIVATE_KEY');
  const publicKeyPem = secret('JWT_PUBLIC_KEY');
  if ((privateKeyPem === null) !== (publicKeyPem === null)) {
    problems.push('set both JWT_PRIVATE_KEY and JWT_PUBLIC_KEY (or their _FILE forms), or neither');
  }

  const previousKeysText = secret('JWT_PREVIOUS_PUBLIC_KEYS');
  const previousPublicKeyPems = previousKeysText === null ? [] : (previousKeysText.match(PEM_PUBLIC_KEY) ?? []);
  if (previousKeysText !== null && previousPublicKeyPems.length === 0) {
    problems.push('JWT_PREVIOUS_PUBLIC_KEYS must hold one or more PEM public keys (-----BEGIN PUBLIC KEY-----…)');
  }

  const lockout = {
    threshold: integer('LOCKOUT_THRESHOLD', 30, 1, 1_000_000),
    baseWaitSeconds: duration('LOCKOUT_BASE_WAIT', '1m'),
    maxWaitSeconds: duration('LOCKOUT_MAX_WAIT', '15m'),
  };
  if (lockout.maxWaitSeconds < lockout.baseWaitSeconds) problems.push('LOCKOUT_MAX_WAIT must not be shorter than LOCKOUT_BASE_WAIT');

  const trustedProxies = (get('TRUSTED_PROXIES') ?? '').split(',').map((p) => p.trim()).filter(Boolean);
  const badProxies = trustedProxies.filter((p) => !/^[0-9A-Fa-f.:]+(\/\d{1,3})?$/.test(p) && !['loopback', 'linklocal', 'uniquelocal'].includes(p));
  if (badProxies.length > 0) problems.push(`TRUSTED_PROXIES must be a comma-separated list of addresses or CIDR ranges (bad: "${badProxies.join(',')}")`);

  const logLevel = get('LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);

  const config: Config = {
    port,
    host,
    metricsPort,
    dataDir,
    database,
    migrateOnStart: boolean('MIGRATE_ON_START', true),
    relayEnabled: boolean('RELAY_ENABLED', true),
    kafka,
    smtpUrl,
    mailFrom: get('MAIL_FROM') ?? 'Access Control <no-reply@localhost>',
    publicUrl,
    admin,
    jwt: {
      privateKeyPem,
      publicKeyPem,
      issuer: get('JWT_ISSUER') ?? publicUrl,
      audience: get('JWT_AUDIENCE') ?? 'access-control',
      ttlSeconds: duration('ACCESS_TOKEN_TTL', '15m'),
      previousPublicKeyPems,
    },
    lockout,
    rateLimits: {
      addressPerMinute: integer('ADDRESS_RATE_LIMIT', 100, 0, 1_000_000),
      invitesPerMinute: integer('INVITE_RATE_LIMIT', 30, 0, 1_000_000),
    },
    trustedProxies,
    maxHeaderBytes: integer('MAX_HEADER_SIZE', 16 * 1024, 1024, 1024 * 1024),
    invitationTtlSeconds: duration('INVITATION_TTL', '7d'),
    actorCacheTtlSeconds: duration('ACTOR_CACHE_TTL', '0s', { min: 0 }),
    logLevel,
    bodyLimitBytes: integer('BODY_LIMIT', 16 * 1024, 256, 10 * 1024 * 1024),
    shutdownDrainSeconds: duration('SHUTDOWN_DRAIN', '0s', { min: 0 }),
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

function parseDatabaseUrl(raw: string | undefined, dataDir: string, problems: string[]): DatabaseConfig {
  if (raw === undefined) return { kind: 'sqlite', path: path.join(dataDir, 'access-control.sqlite') };
  if (raw.startsWith('sqlite:')) {
    const file = raw.slice('sqlite:'.length).replace(/^\/\//, '');
    if (file === '') problems.push('DATABASE_URL sqlite: needs a file path, e.g. sqlite:./data/db.sqlite');
    return { kind: 'sqlite', path: file === ':memory:' ? file : path.resolve(file) };
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    problems.push('DATABASE_URL must be mysql://…, mariadb://… or sqlite:<path>');
    return { kind: 'sqlite', path: ':memory:' };
  }
  if (url.protocol !== 'mysql:' && url.protocol !== 'mariadb:') {
    problems.push(`DATABASE_URL scheme "${url.protocol}" is not supported: use mysql://, mariadb:// or sqlite:`);
  }
  if (url.pathname.replace(/^\//, '') === '') problems.push('DATABASE_URL must name a database, e.g. mysql://host:3306/access_control');
  return { kind: url.protocol === 'mariadb:' ? 'mariadb' : 'mysql', url: raw };
}
