import { readFileSync } from 'node:fs';
import path from 'node:path';
import addressparser from 'nodemailer/lib/addressparser';
import { Permissions } from '../../domain/permissions/permission';
import { parseDurationSeconds } from './duration';
import { isProxyAddress } from './proxy-addresses';
import { duration, type Env, flag, integer, parsed, readEnvironment, refuse, type Refused, type Table, text, type Values } from './environment';

const KNOWN_PERMISSIONS: ReadonlySet<string> = new Set(Object.values(Permissions));

/**
 * Every environment variable the service reads, in one table: loadConfig reads the first two
 * sections, loadMailerSettings the last. Anything else in the environment is ignored.
 * README.md's "Configuration" table documents each of them (a unit test holds the two together).
 */

export type DatabaseConfig =
  | { kind: 'mysql' | 'mariadb'; url: string }
  | { kind: 'sqlite'; path: string };

const TOPIC = '^[A-Za-z0-9._-]{1,249}$';
const topicProblem = (name: string, topic: string) =>
  `${name} must be a Kafka topic name: 1 to 249 of letters, digits, ".", "_", "-" (got "${topic}")`;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

const list = (raw: string) => raw.split(',').map((item) => item.trim()).filter(Boolean);

/** An inline PEM, its new lines possibly escaped as \n (one line in an env file). */
const pem = (description: string) => parsed(description, (raw) => raw.replace(/\\n/g, '\n'), { verbatim: true });

/** A file read at start; its content is the value. */
const file = (description: string) =>
  parsed(description, (filePath) => {
    try {
      return readFileSync(filePath, 'utf8');
    } catch {
      return refuse();
    }
  }, { problem: (name, filePath) => `${name}: cannot read "${filePath}"` });

/** Read by the API process, the mailer process and the CLI (loadConfig). */
const SERVICE = {
  PORT: integer('port of the API', { default: '3000', min: 0, max: 65535 }),
  HOST: text('address the API and its management port listen on', { default: '0.0.0.0' }),
  METRICS_PORT: integer("the API's management port (GET /metrics); 0: any free port; must differ from PORT", { default: '9465', min: 0, max: 65535 }),
  DATA_DIR: parsed('where the embedded default keeps its files', (dir) => path.resolve(dir), { default: './data' }),
  DATABASE_URL: parsed('mysql://…, mariadb://… or sqlite:<path>; unset: SQLite under DATA_DIR', parseDatabaseUrl),
  MIGRATE_ON_START: flag('apply migrations when the API starts', { default: 'true' }),
  RELAY_ENABLED: flag('the API process publishes the outbox', { default: 'true' }),
  KAFKA_BROKERS: parsed('comma-separated host:port list; unset: in-process events', parseBrokers),
  SMTP_URL: parsed('smtp://user:pass@host:port or smtps://…; unset: mails written as .eml files', parseSmtpUrl, {
    // Never the URL itself: it holds the password.
    problem: (name) => `${name} must look like smtp://user:pass@host:port or smtps://…`,
  }),
  MAIL_FROM: parsed('sender of invitation mails: an address, or a name and an address in <>', parseMailFrom, {
    default: 'Access Control <no-reply@localhost>',
    problem: (name, value) => `${name} must be an e-mail address, or a name and one in <>, such as "Access Control <no-reply@example.com>" (got "${value}")`,
  }),
  PUBLIC_URL: parsed('base URL of invitation links and default token issuer; unset: http://localhost:$PORT', parsePublicUrl, {
    // Never a user or password it may carry.
    problem: (name, url) => `${name} must be an http(s) URL (got "${String(url).replace(/\/\/[^@/\s]*@/g, '//***@')}")`,
  }),
  APP_URL: parsed('the application a person goes to once joined (a link on the invitation page); unset: no link', parseAppUrl, {
    problem: (name, url) => `${name} must be an absolute http(s) URL (got "${url}")`,
  }),
  ADMIN_USERNAME: text('bootstrap admin: username (with ADMIN_PASSWORD and ADMIN_EMAIL)'),
  // A password is taken as given: surrounding spaces are part of it.
  ADMIN_PASSWORD: text('bootstrap admin: password', { verbatim: true }),
  ADMIN_EMAIL: text('bootstrap admin: e-mail address'),
  ADMIN_NAME: text('bootstrap admin: display name (optional)'),
  JWT_PRIVATE_KEY: pem('private key in PEM (with JWT_PUBLIC_KEY) whose type decides the algorithm: EC P-256 signs ES256, RSA (2048+ bits) RS256, Ed25519 EdDSA; unset: an ES256 pair generated under DATA_DIR'),
  JWT_PRIVATE_KEY_FILE: file('file holding JWT_PRIVATE_KEY'),
  JWT_PUBLIC_KEY: pem('public key in PEM of JWT_PRIVATE_KEY'),
  JWT_PUBLIC_KEY_FILE: file('file holding JWT_PUBLIC_KEY'),
  JWT_PREVIOUS_PUBLIC_KEYS: pem('PEM public keys of retired signing keys (EC P-256, RSA or Ed25519, any mix), in the JWKS and accepted by kid until their tokens expire'),
  JWT_PREVIOUS_PUBLIC_KEYS_FILE: file('file holding JWT_PREVIOUS_PUBLIC_KEYS'),
  JWT_NEXT_PUBLIC_KEYS: pem('PEM public keys of the signing key to come (EC P-256, RSA or Ed25519), in the JWKS and accepted by kid before any replica signs with it: the first step of a rotation'),
  JWT_NEXT_PUBLIC_KEYS_FILE: file('file holding JWT_NEXT_PUBLIC_KEYS'),
  JWT_ISSUER: text('iss of access tokens; unset: PUBLIC_URL'),
  JWT_AUDIENCE: text('aud of access tokens', { default: 'access-control' }),
  RESOURCE_SERVERS: parsed("comma-separated absolute URIs of other services a service account may ask a token for (RFC 8707 `resource`): the token's aud is the URI asked for, and this API refuses it; unset: none", parseResourceServers),
  ACCESS_TOKEN_TTL: duration('access token lifetime', { default: '15m' }),
  SERVICE_TOKEN_TTL: duration("lifetime of a service account's access token (client credentials grant)", { default: '15m' }),
  INVITATION_TTL: duration('invitation link lifetime', { default: '7d' }),
  PASSWORD_RESET_TTL: duration('password-reset link lifetime', { default: '1h' }),
  REFRESH_TOKEN_TTL: duration('refresh token family lifetime from sign-in, however often it is used', { default: '30d' }),
  REFRESH_TOKEN_IDLE_TTL: duration('refresh token lifetime unused; not longer than REFRESH_TOKEN_TTL', { default: '7d' }),
  CONSOLE_SESSION_TTL: duration("the admin console's session from sign-in, however often it is used (sign in again then); never longer than REFRESH_TOKEN_TTL", { default: '10h' }),
  CONSOLE_SESSION_IDLE_TTL: duration("the admin console's session ends when its access token has not been renewed this long (never shorter than ACCESS_TOKEN_TTL, the renewals' interval while it is used); not longer than CONSOLE_SESSION_TTL", { default: '30m' }),
  REFRESH_TOKEN_REUSE_GRACE: duration('a used refresh token presented again this soon is refused without revoking its family (0s: every reuse revokes)', { default: '0s', min: 0, max: '1m', examples: '0s or 10s' }),
  LOCKOUT_THRESHOLD: integer('failed sign-ins before an account is locked', { default: '30', min: 1, max: 1_000_000 }),
  LOCKOUT_BASE_WAIT: duration("first lock's wait, doubling per repeated lockout", { default: '1m' }),
  LOCKOUT_MAX_WAIT: duration('longest lock; not shorter than LOCKOUT_BASE_WAIT', { default: '15m' }),
  MFA_MAX_FAILURES: integer('second-factor codes refused after a right password, since the last success, before the second step refuses every code until the password is reset', {
    default: '100',
    min: 1,
    max: 1_000_000,
  }),
  ADDRESS_RATE_LIMIT: integer('sign-in and accept requests a minute per client address (0: off)', { default: '100', min: 0, max: 1_000_000 }),
  INVITE_RATE_LIMIT: integer('invites and resends a minute per inviter (0: off)', { default: '30', min: 0, max: 1_000_000 }),
  PASSWORD_RESET_RATE_LIMIT: integer('password-reset requests an hour per target e-mail address (0: off)', { default: '5', min: 0, max: 1_000_000 }),
  CLIENT_AUTH_RATE_LIMIT: integer('failed client authentications a minute at the OAuth endpoints, per client address (0: off)', { default: '20', min: 0, max: 1_000_000 }),
  TRUSTED_PROXIES: parsed('comma-separated addresses/CIDRs of proxies whose X-Forwarded-For is believed (or loopback, linklocal, uniquelocal)', (raw) => {
    const bad = list(raw).filter((p) => !isProxyAddress(p));
    return bad.length > 0
      ? refuse(`TRUSTED_PROXIES must be a comma-separated list of IPv4/IPv6 addresses, CIDR ranges (10.0.0.0/8) or loopback, linklocal, uniquelocal (bad: "${bad.join(',')}")`)
      : list(raw);
  }),
  MAX_HEADER_SIZE: integer('largest request head in bytes; beyond it 431', { default: '16384', min: 1024, max: 1024 * 1024 }),
  BODY_LIMIT: integer('largest request body in bytes', { default: '16384', min: 256, max: 10 * 1024 * 1024 }),
  REQUEST_TIMEOUT: duration('longest a client may take to send a whole request (head and body); then 408 and the connection closed', { default: '30s', max: '10m', examples: '10s or 30s' }),
  HEADERS_TIMEOUT: duration('longest a client may take to send a request head (also how long a new connection may stay silent); not longer than REQUEST_TIMEOUT', { default: '10s', max: '10m', examples: '5s or 10s' }),
  MAX_CONNECTIONS: integer('connections open at once on PORT; beyond, a new one is closed at once (never more than the open-file limit less 512)', { default: '10000', min: 1, max: 1_000_000 }),
  MAX_CONNECTIONS_PER_ADDRESS: integer('connections open at once on PORT from one client address; beyond, a new one is closed at once; TRUSTED_PROXIES are exempt (0: no limit)', { default: '1024', min: 0, max: 1_000_000 }),
  DATABASE_QUERY_TIMEOUT: duration('longest a MySQL/MariaDB statement may go unanswered before it fails (503) and its connection is dropped; 0s: no limit', { default: '10s', min: 0, max: '10m' }),
  SEARCH_TIME_LIMIT: duration('longest a user search (q) may run on MySQL/MariaDB; a longer one is refused as SEARCH_TOO_BROAD (422); shorter than DATABASE_QUERY_TIMEOUT; 0s: no limit', { default: '2s', min: 0, max: '60s', examples: '500ms, 2s or 10s' }),
  ACTOR_CACHE_TTL: duration("how long an authenticated user's lookup is reused when the revocation signal is off or lost (0s: read on every request)", { default: '0s', min: 0 }),
  REVOCATION_WINDOW: duration('how stale a replica may trust its revocation signal; a change that ends or narrows access answers after it (0s: read the subject on every request)', { default: '250ms', min: 0, max: '10s' }),
  LOG_LEVEL: text('fatal … trace, silent', { default: 'info', enum: LOG_LEVELS, problem: (name) => `${name} must be one of ${LOG_LEVELS.join(', ')}` }),
  SHUTDOWN_DRAIN: duration('after SIGTERM, how long /readyz answers 503 while requests are still served', { default: '0s', min: 0 }),
  AUDIT_RETENTION: duration('how long audit entries are kept; older ones are swept in batches, leaving a checkpoint so the rest still verifies', { default: '365d', min: 86_400 }),
  AUDIT_SEAL_KEY: text('key of the HMAC that links audit entries into their chain (kept outside the database), at least 32 characters; unset: plain SHA-256', {
    verbatim: true,
    // As strong as MFA_ENCRYPTION_KEY's 32 bytes at the least: a short one is guessed, and then the chain rebuilt.
    pattern: '^[\\s\\S]{32,}$',
    problem: (name) => `${name} must be at least 32 characters (a random one: openssl rand -hex 32)`,
  }),
  MFA_REQUIRED_PERMISSIONS: parsed('comma-separated permissions: a user whose role holds any of them and who has no second factor signs in to a token that can only enroll one (and read /v1/me); unset: none', (raw) => {
    // Checked against the catalogue: a misspelt name would switch the policy off without a word (review K).
    const bad = list(raw).filter((p) => !KNOWN_PERMISSIONS.has(p));
    return bad.length > 0
      ? refuse(`MFA_REQUIRED_PERMISSIONS must be a comma-separated list of the service's permissions (${[...KNOWN_PERMISSIONS].join(', ')}); not one: "${bad.join(',')}"`)
      : list(raw);
  }),
  MFA_ENCRYPTION_KEY: text('key that seals second-factor secrets at rest (AES-256-GCM): 64 hex digits or base64 of 32 bytes; unset: one generated under DATA_DIR', {
    verbatim: true,
    pattern: '^([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)$',
    problem: (name) => `${name} must be 32 bytes as 64 hex digits or as base64 (44 characters)`,
  }),
  AUDIT_TRAIL: flag('record the audit trail (false only to measure its cost)', { default: 'true' }),
} satisfies Table;

/** Read by loadConfig only when KAFKA_BROKERS is set. */
const KAFKA = {
  KAFKA_TOPIC: text('topic of user events', { default: 'access-control.user-events.v1', pattern: TOPIC, problem: topicProblem }),
  KAFKA_CLIENT_ID: text('Kafka client id', { default: 'access-control' }),
  KAFKA_AUDIT_TOPIC: text('topic of the audit trail’s entries', { default: 'access-control.audit-events.v1', pattern: TOPIC, problem: topicProblem }),
  KAFKA_TOPIC_PARTITIONS: integer('partitions of the topics the migrate step creates', { default: '6', min: 1, max: 10_000 }),
  KAFKA_REPLICATION_FACTOR: integer("replication factor of the topics it creates; -1: the brokers' default", {
    default: '-1',
    min: -1,
    max: 32767,
    pattern: '^(?:-1|\\d+)$',
    also: { not: { const: 0 } },
    must: "be -1 (the broker's default) or an integer from 1 to 32767",
  }),
  KAFKA_TOPIC_RETENTION: parsed(
    'how long the events topic the migrate step creates keeps its events (retention.ms): forever, or a duration of at least 1h; an existing topic is left as it is',
    (raw) => {
      if (raw.trim().toLowerCase() === 'forever') return -1;
      const seconds = parseDurationSeconds(raw);
      return seconds === null || seconds < 3600 ? refuse() : Math.round(seconds * 1000);
    },
    { default: 'forever', problem: (name, raw) => `${name} must be forever or a duration of at least 1h, such as 30d (got "${raw}")` },
  ),
} satisfies Table;

/** Read by the mailer process only (loadMailerSettings). */
const MAILER = {
  MAILER_GROUP_ID: text('mailer: Kafka consumer group', {
    default: 'access-control-mailer',
    pattern: '^[A-Za-z0-9._-]{1,255}$',
    problem: (name, group) => `${name} must be 1 to 255 of letters, digits, ".", "_", "-" (got "${group}")`,
  }),
  MAILER_DLQ_TOPIC: text('mailer: dead-letter topic; unset: <KAFKA_TOPIC>.mailer-dlq', { pattern: TOPIC, problem: topicProblem }),
  MAILER_RETRY_MAX: duration('mailer: longest wait between retries of a temporary failure', { default: '60s', max: '1h', examples: '30s or 5m' }),
  MAILER_CONCURRENCY: integer('mailer: partitions handled at once', { default: '2', min: 1, max: 64 }),
  MAILER_IN_FLIGHT: integer('mailer: mails of different users handled at once within a partition', { default: '8', min: 1, max: 256 }),
  MAILER_METRICS_PORT: integer("mailer: port of its GET /metrics, /healthz and /readyz (0: any free port)", { default: '9464', min: 0, max: 65535 }),
} satisfies Table;

export const ENVIRONMENT = { ...SERVICE, ...KAFKA, ...MAILER };

type Name = keyof typeof ENVIRONMENT;
const namesOf = <T extends Table>(section: T) => Object.keys(section) as (keyof T & string)[];

export const SERVICE_VARIABLES = namesOf(SERVICE);
export const KAFKA_VARIABLES = namesOf(KAFKA);
export const MAILER_VARIABLES = namesOf(MAILER);

/** The named variables from `env`, validated and parsed; `defaults`: texts of defaults that depend on other values. */
export function readVariables<N extends Name>(
  names: readonly N[],
  env: Env,
  defaults: Partial<Record<N, string>> = {},
): { values: Values<typeof ENVIRONMENT, N>; problems: string[] } {
  return readEnvironment(ENVIRONMENT, names, env, defaults);
}

/** An absolute http(s) URL with no user or password (refused with `credentials`, never echoed), or a refusal. */
function httpUrl(raw: string, credentials: string): URL | Refused {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse();
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return refuse();
  if (url.username !== '' || url.password !== '') return refuse(credentials);
  return url;
}

/**
 * The issuer and the base of every link: an http(s) URL with no user or password (the discovery document would publish
 * them), no query and no fragment (every path is appended to it: `…?x=1/.well-known/jwks.json`). Review K, 2026-12-06.
 */
function parsePublicUrl(raw: string): string | Refused {
  const url = httpUrl(raw, 'PUBLIC_URL must not carry a user or password: it is the issuer every token and the discovery document name');
  if (!(url instanceof URL)) return url;
  if (raw.includes('?') || raw.includes('#')) return refuse(`PUBLIC_URL must have no query or fragment: paths are appended to it (got "${raw}")`);
  return raw.replace(/\/+$/, '');
}

/**
 * RFC 8707 §2: each an absolute URI without a fragment, kept as written (a token's `aud` is the URI exactly as the
 * client asks for it, and the resource server compares it as it configured it).
 */
function parseResourceServers(raw: string): string[] | Refused {
  const resources = list(raw);
  const bad = resources.filter((resource) => !URL.canParse(resource) || resource.includes('#'));
  return bad.length > 0
    ? refuse(`RESOURCE_SERVERS must be a comma-separated list of absolute URIs without a fragment, such as https://orders.example.com (bad: "${bad.join(',')}")`)
    : resources;
}

function parseSmtpUrl(raw: string): string | Refused {
  try {
    const url = new URL(raw);
    return (url.protocol === 'smtp:' || url.protocol === 'smtps:') && url.hostname !== '' ? raw : refuse();
  } catch {
    return refuse();
  }
}

/**
 * One sender, read as nodemailer reads it (`address`, `Name <address>`, `address (Name)`, a quoted name): it puts the
 * address in MAIL FROM and From, and a value it finds no address in left both empty (review K).
 */
function parseMailFrom(raw: string): string | Refused {
  const parsed = addressparser(raw, { flatten: true });
  return parsed.length === 1 && /^[^@\s]+@[^@\s]+$/.test(parsed[0]!.address) ? raw : refuse();
}

/** An absolute http(s) URL. It is shown on a page, so one carrying a user or password is refused (and not echoed). */
function parseAppUrl(raw: string): string | Refused {
  const url = httpUrl(raw, 'APP_URL must not carry a user or password: it is shown on the invitation page');
  return url instanceof URL ? url.href : url;
}

function parseBrokers(raw: string): string[] | Refused {
  const brokers = list(raw);
  const bad = brokers.filter((b) => {
    const match = /^([A-Za-z0-9.\-_[\]:]+):(\d{1,5})$/.exec(b);
    return !match || Number(match[2]) < 1 || Number(match[2]) > 65535;
  });
  if (brokers.length === 0 || bad.length > 0) {
    return refuse(`KAFKA_BROKERS must be a comma-separated list of host:port (bad: "${bad.join(',') || raw}")`);
  }
  return brokers;
}

function parseDatabaseUrl(raw: string): DatabaseConfig | Refused {
  if (raw.startsWith('sqlite:')) {
    const file = raw.slice('sqlite:'.length).replace(/^\/\//, '');
    if (file === '') return refuse('DATABASE_URL sqlite: needs a file path, e.g. sqlite:./data/db.sqlite');
    return { kind: 'sqlite', path: file === ':memory:' ? file : path.resolve(file) };
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse('DATABASE_URL must be mysql://…, mariadb://… or sqlite:<path>');
  }
  const problems: string[] = [];
  if (url.protocol !== 'mysql:' && url.protocol !== 'mariadb:') {
    problems.push(`DATABASE_URL scheme "${url.protocol}" is not supported: use mysql://, mariadb:// or sqlite:`);
  }
  if (url.pathname.replace(/^\//, '') === '') problems.push('DATABASE_URL must name a database, e.g. mysql://host:3306/access_control');
  return problems.length > 0 ? refuse(...problems) : { kind: url.protocol === 'mariadb:' ? 'mariadb' : 'mysql', url: raw };
}
