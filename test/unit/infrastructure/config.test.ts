import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../../src/infrastructure/config/config';
import { problemsOf } from '../../support/config-problems';


const ADMIN = { ADMIN_USERNAME: 'root', ADMIN_PASSWORD: 'a long enough password', ADMIN_EMAIL: 'root@example.com' };
const PEM_PRIVATE = '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEI\n-----END PRIVATE KEY-----\n';
const PEM_PUBLIC = '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA\n-----END PUBLIC KEY-----\n';

describe('loadConfig', () => {
  describe('defaults (an empty environment)', () => {
    const config = loadConfig({});

    it('listens on 0.0.0.0:3000', () => {
      expect(config.port).toBe(3000);
      expect(config.host).toBe('0.0.0.0');
    });

    it('keeps an embedded SQLite database under ./data', () => {
      expect(config.dataDir).toBe(path.resolve('data'));
      expect(config.database).toEqual({ kind: 'sqlite', path: path.join(path.resolve('data'), 'access-control.sqlite') });
    });

    it('uses the in-process bus and file mail (no Kafka, no SMTP)', () => {
      expect(config.kafka).toBeNull();
      expect(config.smtpUrl).toBeNull();
      expect(config.mailFrom).toEqual(expect.any(String));
    });

    it('builds invitation links on http://localhost:$PORT', () => {
      expect(config.publicUrl).toBe('http://localhost:3000');
    });

    it('creates no admin and generates its own JWT keys', () => {
      expect(config.admin).toBeNull();
      expect(config.jwt.privateKeyPem).toBeNull();
      expect(config.jwt.publicKeyPem).toBeNull();
    });

    it('gives access tokens 15 minutes and invitations 7 days', () => {
      expect(config.jwt.ttlSeconds).toBe(15 * 60);
      expect(config.invitationTtlSeconds).toBe(7 * 24 * 3600);
    });

    it('logs at info', () => {
      expect(config.logLevel).toBe('info');
    });
  });

  it('treats an empty or blank variable as unset', () => {
    const config = loadConfig({ PORT: '', LOG_LEVEL: '   ', DATABASE_URL: '' });

    expect(config.port).toBe(3000);
    expect(config.logLevel).toBe('info');
    expect(config.database.kind).toBe('sqlite');
  });

  it('reads good values', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '127.0.0.1',
      KAFKA_BROKERS: 'kafka-1:9092, kafka-2:9093',
      SMTP_URL: 'smtps://user:pass@mail.example.com:465',
      MAIL_FROM: 'Team <team@example.com>',
      LOG_LEVEL: 'debug',
      MIGRATE_ON_START: 'false',
    });

    expect(config.port).toBe(8080);
    expect(config.host).toBe('127.0.0.1');
    expect(config.kafka?.brokers).toEqual(['kafka-1:9092', 'kafka-2:9093']);
    expect(config.smtpUrl).toBe('smtps://user:pass@mail.example.com:465');
    expect(config.mailFrom).toBe('Team <team@example.com>');
    expect(config.logLevel).toBe('debug');
    expect(config.migrateOnStart).toBe(false);
    expect(config.publicUrl).toBe('http://localhost:8080');
  });

  it('strips trailing slashes from PUBLIC_URL and uses it as the default JWT issuer', () => {
    const config = loadConfig({ PUBLIC_URL: 'https://auth.example.com/' });

    expect(config.publicUrl).toBe('https://auth.example.com');
    expect(config.jwt.issuer).toBe('https://auth.example.com');
  });

  it('reads APP_URL, the link shown once a person has joined, as an absolute http(s) URL; unset: none', () => {
    expect(loadConfig({}).appUrl).toBeNull();
    expect(loadConfig({ APP_URL: 'https://app.example.com/start?from=invite' }).appUrl).toBe('https://app.example.com/start?from=invite');
    expect(loadConfig({ APP_URL: 'http://localhost:8080' }).appUrl).toBe('http://localhost:8080/');
    for (const bad of ['/relative/path', 'app.example.com', 'javascript:alert(1)', 'ftp://app.example.com']) {
      expect(problemsOf({ APP_URL: bad })).toEqual([`APP_URL must be an absolute http(s) URL (got "${bad}")`]);
    }
  });

  it('refuses an APP_URL carrying a user or password, without repeating it', () => {
    const problems = problemsOf({ APP_URL: 'https://bob:s3cret-pass@app.example.com/' });

    expect(problems).toEqual(['APP_URL must not carry a user or password: it is shown on the invitation page']);
    expect(problems.join('\n')).not.toContain('s3cret-pass');
  });

  describe('rejects each bad value with a message naming the variable', () => {
    it.each([
      ['PORT', 'abc'],
      ['PORT', '70000'],
      ['PORT', '-1'],
      ['PORT', '80.5'],
      ['METRICS_PORT', 'abc'],
      ['METRICS_PORT', '70000'],
      ['METRICS_PORT', '3000'],
      ['DATABASE_URL', 'postgres://db:5432/access_control'],
      ['DATABASE_URL', 'mysql://db:3306'],
      ['DATABASE_URL', 'mysql://db:3306/'],
      ['DATABASE_URL', 'just words'],
      ['DATABASE_URL', 'sqlite:'],
      ['KAFKA_BROKERS', 'kafka-without-port'],
      ['KAFKA_BROKERS', 'kafka:9092,,bad host:1'],
      ['KAFKA_BROKERS', ','],
      ['SMTP_URL', 'http://mail.example.com'],
      ['SMTP_URL', 'mail.example.com:25'],
      ['PUBLIC_URL', 'ftp://example.com'],
      ['PUBLIC_URL', 'not a url'],
      ['ACCESS_TOKEN_TTL', 'fifteen minutes'],
      ['ACCESS_TOKEN_TTL', '0'],
      ['ACCESS_TOKEN_TTL', '-15m'],
      ['INVITATION_TTL', '7 days'],
      ['INVITATION_TTL', '0d'],
      ['SHUTDOWN_DRAIN', 'soon'],
      ['LOG_LEVEL', 'verbose'],
      ['MIGRATE_ON_START', 'maybe'],
      ['BODY_LIMIT', '10'],
      ['BODY_LIMIT', 'lots'],
    ])('%s=%j', (name, value) => {
      const problems = problemsOf({ [name]: value });

      expect(problems).toHaveLength(1);
      expect(problems[0]).toContain(name);
    });

    it('KAFKA_BROKERS with a port above 65535', () => {
      const problems = problemsOf({ KAFKA_BROKERS: 'kafka:99999' });

      expect(problems).toHaveLength(1);
      expect(problems[0]).toContain('KAFKA_BROKERS');
    });

    it.each(['ACCESS_TOKEN_TTL', 'INVITATION_TTL'])('%s shorter than a second (tokens dead on issue)', (name) => {
      const problems = problemsOf({ [name]: '400ms' });

      expect(problems).toHaveLength(1);
      expect(problems[0]).toContain(name);
    });

    it('ADMIN_NAME set without the other admin variables', () => {
      const problems = problemsOf({ ADMIN_NAME: 'Ada' });

      expect(problems).toHaveLength(1);
      expect(problems[0]).toContain('ADMIN_NAME');
    });

    it('throws a ConfigError whose message lists the problem', () => {
      expect(() => loadConfig({ PORT: 'abc' })).toThrow(ConfigError);
      expect(() => loadConfig({ PORT: 'abc' })).toThrow(/PORT/);
    });
  });

  it('reports every problem together, not only the first', () => {
    const env = { PORT: 'abc', DATABASE_URL: 'postgres://db/x', LOG_LEVEL: 'loud', INVITATION_TTL: 'never', ADMIN_USERNAME: 'root' };

    const error = (() => {
      try {
        loadConfig(env);
      } catch (e) {
        return e as ConfigError;
      }
      throw new Error('expected a ConfigError');
    })();

    expect(error).toBeInstanceOf(ConfigError);
    expect(error.problems).toHaveLength(5);
    for (const name of ['PORT', 'DATABASE_URL', 'LOG_LEVEL', 'INVITATION_TTL', 'ADMIN_']) {
      expect(error.problems.some((p) => p.includes(name))).toBe(true);
      expect(error.message).toContain(name);
    }
  });

  describe('Kafka topics the migrate step creates', () => {
    const KAFKA = { KAFKA_BROKERS: 'kafka:9092' };

    it('default to 6 partitions and the broker\'s replication factor (-1)', () => {
      expect(loadConfig(KAFKA).kafka).toMatchObject({ topic: 'access-control.user-events.v1', topicPartitions: 6, replicationFactor: -1 });
    });

    it('reads KAFKA_TOPIC_PARTITIONS and KAFKA_REPLICATION_FACTOR', () => {
      const config = loadConfig({ ...KAFKA, KAFKA_TOPIC_PARTITIONS: '12', KAFKA_REPLICATION_FACTOR: '3' });
      expect(config.kafka).toMatchObject({ topicPartitions: 12, replicationFactor: 3 });
    });

    it.each([
      ['KAFKA_TOPIC_PARTITIONS', '0'],
      ['KAFKA_TOPIC_PARTITIONS', 'many'],
      ['KAFKA_TOPIC_PARTITIONS', '-1'],
      ['KAFKA_TOPIC_PARTITIONS', '100000'],
      ['KAFKA_REPLICATION_FACTOR', '0'],
      ['KAFKA_REPLICATION_FACTOR', '-2'],
      ['KAFKA_REPLICATION_FACTOR', 'three'],
      ['KAFKA_REPLICATION_FACTOR', '1.5'],
      ['KAFKA_TOPIC', 'user events'],
    ])('%s=%j is refused, naming the variable', (name, value) => {
      const problems = problemsOf({ ...KAFKA, [name]: value });

      expect(problems).toHaveLength(1);
      expect(problems[0]).toContain(name);
    });
  });

  describe('DATABASE_URL', () => {
    it.each([
      ['mysql://user:secret@db:3306/access_control', 'mysql'],
      ['mariadb://user:secret@db:3306/access_control', 'mariadb'],
    ])('takes %s as a %s server', (url, kind) => {
      expect(loadConfig({ DATABASE_URL: url }).database).toEqual({ kind, url });
    });

    it.each([
      ['sqlite:./tmp/test.sqlite', path.resolve('tmp/test.sqlite')],
      ['sqlite:/var/lib/ac/db.sqlite', '/var/lib/ac/db.sqlite'],
      ['sqlite:///var/lib/ac/db.sqlite', '/var/lib/ac/db.sqlite'],
      ['sqlite::memory:', ':memory:'],
    ])('takes %s as the SQLite file %s', (url, file) => {
      expect(loadConfig({ DATABASE_URL: url }).database).toEqual({ kind: 'sqlite', path: file });
    });

    it('puts the embedded database under DATA_DIR when unset', () => {
      const config = loadConfig({ DATA_DIR: '/srv/access-control' });

      expect(config.dataDir).toBe('/srv/access-control');
      expect(config.database).toEqual({ kind: 'sqlite', path: '/srv/access-control/access-control.sqlite' });
    });
  });

  describe('admin bootstrap variables: all or none', () => {
    it('bootstraps no admin when none is set', () => {
      expect(loadConfig({}).admin).toBeNull();
    });

    it('bootstraps the admin when all are set, taking the password exactly as given', () => {
      const config = loadConfig({ ...ADMIN, ADMIN_PASSWORD: '  spaces are part of it  ', ADMIN_NAME: 'Root' });

      expect(config.admin).toEqual({
        username: 'root',
        password: '  spaces are part of it  ',
        email: 'root@example.com',
        name: 'Root',
      });
    });

    it('leaves ADMIN_NAME optional', () => {
      const admin = loadConfig(ADMIN).admin;

      expect(admin).toEqual({ username: 'root', password: 'a long enough password', email: 'root@example.com' });
      expect(admin?.name).toBeUndefined();
    });

    it.each(['ADMIN_USERNAME', 'ADMIN_PASSWORD', 'ADMIN_EMAIL'] as const)('refuses a partial set missing %s, naming it', (missing) => {
      const env: Record<string, string | undefined> = { ...ADMIN, [missing]: undefined };

      const problems = problemsOf(env);

      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(new RegExp(`missing:.*${missing}`));
    });

    it('refuses at start what the bootstrap would refuse after the migrations, naming the variable, never the password', () => {
      expect(problemsOf({ ...ADMIN, ADMIN_PASSWORD: 'short' })).toEqual(['ADMIN_PASSWORD: must be 12 to 128 characters long']);
      expect(problemsOf({ ...ADMIN, ADMIN_PASSWORD: 'x'.repeat(129) })).toEqual(['ADMIN_PASSWORD: must be 12 to 128 characters long']);
      const common = problemsOf({ ...ADMIN, ADMIN_PASSWORD: 'password1234' });
      expect(common).toEqual([expect.stringMatching(/^ADMIN_PASSWORD: is too common/)]);
      expect(problemsOf({ ...ADMIN, ADMIN_PASSWORD: 'ROOT@example.com' })).toEqual(['ADMIN_PASSWORD: must not be your username or e-mail address']);
      const several = problemsOf({ ...ADMIN, ADMIN_EMAIL: 'not an address', ADMIN_PASSWORD: 'short' });
      expect(several).toEqual([expect.stringMatching(/^ADMIN_EMAIL: /), 'ADMIN_PASSWORD: must be 12 to 128 characters long']);
      expect([...common, ...several].join('\n')).not.toMatch(/short|password1234/);
    });

    it('refuses a lone ADMIN_USERNAME, naming both missing variables', () => {
      const problems = problemsOf({ ADMIN_USERNAME: 'root' });

      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(/missing:.*ADMIN_PASSWORD/);
      expect(problems[0]).toMatch(/missing:.*ADMIN_EMAIL/);
    });
  });

  describe('JWT keys: both or none', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(path.join(tmpdir(), 'config-test-'));
      writeFileSync(path.join(dir, 'private.pem'), PEM_PRIVATE);
      writeFileSync(path.join(dir, 'public.pem'), PEM_PUBLIC);
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('takes both inline keys, turning escaped \\n into new lines', () => {
      const config = loadConfig({
        JWT_PRIVATE_KEY: PEM_PRIVATE.replace(/\n/g, '\\n'),
        JWT_PUBLIC_KEY: PEM_PUBLIC.replace(/\n/g, '\\n'),
      });

      expect(config.jwt.privateKeyPem).toBe(PEM_PRIVATE);
      expect(config.jwt.publicKeyPem).toBe(PEM_PUBLIC);
    });

    it('reads both keys from the _FILE paths', () => {
      const config = loadConfig({
        JWT_PRIVATE_KEY_FILE: path.join(dir, 'private.pem'),
        JWT_PUBLIC_KEY_FILE: path.join(dir, 'public.pem'),
      });

      expect(config.jwt.privateKeyPem).toBe(PEM_PRIVATE);
      expect(config.jwt.publicKeyPem).toBe(PEM_PUBLIC);
    });

    it.each([
      [{ JWT_PRIVATE_KEY: PEM_PRIVATE }],
      [{ JWT_PUBLIC_KEY: PEM_PUBLIC }],
      [{ JWT_PRIVATE_KEY_FILE: '<dir>/private.pem' }],
    ])('refuses only one of the pair (%j), naming both', (partial) => {
      const env = Object.fromEntries(Object.entries(partial).map(([k, v]) => [k, v.replace('<dir>', dir)]));

      const problems = problemsOf(env);

      expect(problems).toHaveLength(1);
      expect(problems[0]).toContain('JWT_PRIVATE_KEY');
      expect(problems[0]).toContain('JWT_PUBLIC_KEY');
    });

    it('refuses a key given both inline and as a file', () => {
      const problems = problemsOf({
        JWT_PRIVATE_KEY: PEM_PRIVATE,
        JWT_PRIVATE_KEY_FILE: path.join(dir, 'private.pem'),
        JWT_PUBLIC_KEY: PEM_PUBLIC,
      });

      expect(problems).toHaveLength(1);
      expect(problems[0]).toContain('JWT_PRIVATE_KEY_FILE');
    });

    it('refuses a key file that cannot be read, naming the variable', () => {
      const problems = problemsOf({
        JWT_PRIVATE_KEY_FILE: path.join(dir, 'private.pem'),
        JWT_PUBLIC_KEY_FILE: path.join(dir, 'missing.pem'),
      });

      expect(problems.some((p) => p.includes('JWT_PUBLIC_KEY_FILE'))).toBe(true);
    });
  });

  describe('AUDIT_SEAL_KEY: a key as strong as the others', () => {
    it('refuses one under 32 characters, naming it but not its value', () => {
      for (const key of ['x', 'a'.repeat(31), `${'é'.repeat(30)} `]) {
        expect(problemsOf({ AUDIT_SEAL_KEY: key })).toEqual(['AUDIT_SEAL_KEY must be at least 32 characters (a random one: openssl rand -hex 32)']);
      }
    });

    it('takes 32 characters or more exactly as given', () => {
      const key = ' é'.repeat(16);
      expect(loadConfig({ AUDIT_SEAL_KEY: key }).audit.sealKey).toBe(key);
      expect(loadConfig({ AUDIT_SEAL_KEY: 'ab'.repeat(32) }).audit.sealKey).toBe('ab'.repeat(32));
    });
  });

  describe('durations', () => {
    it.each([
      ['ACCESS_TOKEN_TTL', '1h', 3600],
      ['ACCESS_TOKEN_TTL', '90s', 90],
      // A bare number is seconds (README says so): 15 is 15 s, not 15 minutes.
      ['ACCESS_TOKEN_TTL', '600', 600],
      ['ACCESS_TOKEN_TTL', '15', 15],
      ['INVITATION_TTL', '2d', 172_800],
      ['INVITATION_TTL', '36h', 129_600],
    ])('reads %s=%s as %d seconds', (name, value, seconds) => {
      const config = loadConfig({ [name]: value });
      const read = name === 'ACCESS_TOKEN_TTL' ? config.jwt.ttlSeconds : config.invitationTtlSeconds;

      expect(read).toBe(seconds);
    });

    it('bounds the console session by 10 h from sign-in and 30 min unrenewed, never past the refresh tokens nor under ACCESS_TOKEN_TTL', () => {
      expect(loadConfig({}).consoleSession).toEqual({ sessionSeconds: 36_000, idleSeconds: 1800 });
      expect(loadConfig({ CONSOLE_SESSION_TTL: '8h', CONSOLE_SESSION_IDLE_TTL: '1h' }).consoleSession).toEqual({ sessionSeconds: 28_800, idleSeconds: 3600 });
      // An access token outlives the idle end: the console renews only when it is refused, so the idle end is its lifetime.
      expect(loadConfig({ ACCESS_TOKEN_TTL: '1h' }).consoleSession).toEqual({ sessionSeconds: 36_000, idleSeconds: 3600 });
      expect(loadConfig({ ACCESS_TOKEN_TTL: '1d' }).consoleSession).toEqual({ sessionSeconds: 36_000, idleSeconds: 36_000 });
      expect(loadConfig({ REFRESH_TOKEN_TTL: '2h', REFRESH_TOKEN_IDLE_TTL: '10m' }).consoleSession).toEqual({ sessionSeconds: 7200, idleSeconds: 600 });
      expect(problemsOf({ CONSOLE_SESSION_TTL: '1h', CONSOLE_SESSION_IDLE_TTL: '2h' })).toEqual(['CONSOLE_SESSION_IDLE_TTL must not be longer than CONSOLE_SESSION_TTL']);
    });

    it('bounds a MySQL/MariaDB statement by DATABASE_QUERY_TIMEOUT (10 s; 0s: none), a search by less', () => {
      expect(loadConfig({}).databaseQueryTimeoutSeconds).toBe(10);
      expect(loadConfig({ DATABASE_QUERY_TIMEOUT: '0s', SEARCH_TIME_LIMIT: '0s' }).databaseQueryTimeoutSeconds).toBe(0);
      expect(loadConfig({ DATABASE_QUERY_TIMEOUT: '30s', SEARCH_TIME_LIMIT: '20s' }).searchTimeLimitSeconds).toBe(20);
      const problem = 'SEARCH_TIME_LIMIT must be shorter than DATABASE_QUERY_TIMEOUT (a search past it would fail 503 instead of 422 SEARCH_TOO_BROAD)';
      expect(problemsOf({ SEARCH_TIME_LIMIT: '10s' })).toEqual([problem]);
      expect(problemsOf({ SEARCH_TIME_LIMIT: '0s' })).toEqual([problem]);
    });

    it('allows a zero SHUTDOWN_DRAIN but not a zero token lifetime', () => {
      expect(loadConfig({ SHUTDOWN_DRAIN: '0' }).shutdownDrainSeconds).toBe(0);
      expect(loadConfig({ SHUTDOWN_DRAIN: '10s' }).shutdownDrainSeconds).toBe(10);
      expect(problemsOf({ ACCESS_TOKEN_TTL: '0s' })).toHaveLength(1);
    });
  });
});
