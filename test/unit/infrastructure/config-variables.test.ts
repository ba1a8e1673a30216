import { readFileSync } from 'node:fs';
import path from 'node:path';
import Fastify from 'fastify';
import { CONFIG_VARIABLES, loadConfig } from '../../../src/infrastructure/config/config';
import { ENVIRONMENT } from '../../../src/infrastructure/config/variables';
import { problemsOf } from '../../support/config-problems';

describe('the one table of environment variables', () => {
  it('lists every variable once in CONFIG_VARIABLES, the mailer\'s included', () => {
    expect([...CONFIG_VARIABLES].sort()).toEqual(Object.keys(ENVIRONMENT).sort());
    expect(new Set(CONFIG_VARIABLES).size).toBe(CONFIG_VARIABLES.length);
    expect(CONFIG_VARIABLES).toEqual(expect.arrayContaining(['PORT', 'KAFKA_TOPIC', 'MAILER_GROUP_ID']));
  });

  it('describes each variable in one line', () => {
    for (const [name, variable] of Object.entries(ENVIRONMENT)) {
      expect({ name, description: variable.description }).toEqual({ name, description: expect.stringMatching(/^[^\n]{8,}$/) });
    }
  });

  describe("README.md's configuration table", () => {
    const readme = readFileSync(path.resolve(__dirname, '../../../README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('\n## Configuration'), readme.indexOf('\n## ', readme.indexOf('\n## Configuration') + 1));
    const rows = section.split('\n').filter((line) => line.startsWith('| `'));
    /** The row naming the variable; `X_FILE` may be written as "`X` (or `_FILE`)". */
    const rowOf = (name: string) =>
      rows.find((row) => row.split('|')[1].includes(`\`${name}\``)) ??
      rows.find((row) => name.endsWith('_FILE') && row.split('|')[1].includes(`\`${name.slice(0, -'_FILE'.length)}\``) && row.includes('`_FILE`'));

    it('has a row for every variable', () => {
      expect(rows.length).toBeGreaterThan(10);
      expect(CONFIG_VARIABLES.filter((name) => rowOf(name) === undefined)).toEqual([]);
    });

    it('gives each default as the table declares it', () => {
      for (const [name, variable] of Object.entries(ENVIRONMENT)) {
        if (variable.default === undefined) continue;
        const defaults = rowOf(name)?.split('|').at(-2) ?? '';
        expect({ name, documented: defaults.includes(`\`${variable.default}\``) }).toEqual({ name, documented: true });
      }
    });
  });

  describe('kinds of value', () => {
    it.each(['1e3', '0x10', '+5', '5.0', '٣'])('takes integers as digits only, not %j (which a number coercion would take)', (value) => {
      const problems = problemsOf({ PORT: value });

      expect(problems).toEqual([`PORT must be an integer from 0 to 65535 (got "${value}")`]);
    });

    it.each([
      ['1', true], ['yes', true], ['On', true], ['TRUE', true],
      ['0', false], ['no', false], ['OFF', false], ['False', false],
    ])('reads the switch %j as %s', (value, expected) => {
      expect(loadConfig({ RELAY_ENABLED: value }).relayEnabled).toBe(expected);
    });

    it('reads KAFKA_REPLICATION_FACTOR -1 and the bounds 1 and 32767, not 32768', () => {
      for (const factor of [-1, 1, 32767]) {
        expect(loadConfig({ KAFKA_BROKERS: 'kafka:9092', KAFKA_REPLICATION_FACTOR: String(factor) }).kafka?.replicationFactor).toBe(factor);
      }
      expect(problemsOf({ KAFKA_BROKERS: 'kafka:9092', KAFKA_REPLICATION_FACTOR: '32768' })).toEqual([
        'KAFKA_REPLICATION_FACTOR must be -1 (the broker\'s default) or an integer from 1 to 32767 (got "32768")',
      ]);
    });

    it('reads KAFKA_TOPIC_RETENTION: forever by default, a duration of at least an hour in milliseconds', () => {
      const retention = (value?: string) =>
        loadConfig({ KAFKA_BROKERS: 'kafka:9092', ...(value === undefined ? {} : { KAFKA_TOPIC_RETENTION: value }) }).kafka?.topicRetentionMs;
      expect([retention(), retention('Forever'), retention('30d'), retention('1h')]).toEqual([-1, -1, 30 * 86_400_000, 3_600_000]);
      for (const value of ['59m', '-1', 'never', '0']) {
        expect(problemsOf({ KAFKA_BROKERS: 'kafka:9092', KAFKA_TOPIC_RETENTION: value })).toEqual([
          `KAFKA_TOPIC_RETENTION must be forever or a duration of at least 1h, such as 30d (got "${value}")`,
        ]);
      }
    });

    it('reads the lists, trimming their items', () => {
      const config = loadConfig({ KAFKA_BROKERS: ' a:1 ,b:2,', TRUSTED_PROXIES: '10.0.0.0/8, loopback ,::1' });

      expect(config.kafka?.brokers).toEqual(['a:1', 'b:2']);
      expect(config.trustedProxies).toEqual(['10.0.0.0/8', 'loopback', '::1']);
    });

    it('names the bad items of a list', () => {
      expect(problemsOf({ TRUSTED_PROXIES: '10.0.0.1, proxy.example' })).toEqual([
        'TRUSTED_PROXIES must be a comma-separated list of IPv4/IPv6 addresses, CIDR ranges (10.0.0.0/8) or loopback, linklocal, uniquelocal (bad: "proxy.example")',
      ]);
    });

    it('takes for TRUSTED_PROXIES exactly what fastify trustProxy takes, refusing the rest before it throws at start', () => {
      const good = ['loopback', 'linklocal', 'uniquelocal', '10.0.0.1', '10.0.0.0/8', '192.168.0.0/255.255.0.0', '0.0.0.0/1', '::1', 'fd00::/8', '::ffff:10.0.0.1', '2001:db8::/128'];
      expect(loadConfig({ TRUSTED_PROXIES: good.join(',') }).trustedProxies).toEqual(good);
      expect(() => Fastify({ trustProxy: good })).not.toThrow();
      // What proxy-addr throws on at start (a TypeError and its stack), and the forms it reads in its own way
      // (1.2.3 as 1.2.0.3, octal, hex, a zone) that a reader of the setting would not expect.
      const crashing = ['999.1.1.1', '10.0.0.0/33', '10.0.0.0/0', '::/129', '10.0.0.0/255.0.255.0', '10.0.0.0/0.0.0.0', 'fd00::/ffff::', '10.0.0.1/8/8', 'localhost', '::g'];
      const ambiguous = ['1.2.3', '010.0.0.1', '0xa.0.0.1', 'fe80::1%eth0'];
      for (const entry of [...crashing, ...ambiguous]) {
        expect({ entry, problems: problemsOf({ TRUSTED_PROXIES: entry }) }).toEqual({ entry, problems: [expect.stringContaining(`(bad: "${entry}")`)] });
      }
      for (const entry of crashing) expect(() => Fastify({ trustProxy: [entry] })).toThrow(TypeError);
    });

    it('keeps the wording of each problem', () => {
      expect(problemsOf({ LOG_LEVEL: 'verbose', MIGRATE_ON_START: 'Maybe', INVITATION_TTL: 'soon', SMTP_URL: 'http://mail' }).sort()).toEqual([
        'INVITATION_TTL must be a duration of at least 1s, such as 90s, 15m, 12h or 7d (got "soon")',
        'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
        'MIGRATE_ON_START must be true or false (got "maybe")',
        'SMTP_URL must look like smtp://user:pass@host:port or smtps://…',
      ]);
    });
  });

  describe('the Kafka variables', () => {
    it('are read only with KAFKA_BROKERS set', () => {
      expect(loadConfig({ KAFKA_TOPIC: 'user events', KAFKA_TOPIC_PARTITIONS: 'many' }).kafka).toBeNull();
    });

    it('are checked with a bad KAFKA_BROKERS too, every problem at once', () => {
      const problems = problemsOf({ KAFKA_BROKERS: 'no-port', KAFKA_TOPIC: 'user events' });

      expect(problems).toHaveLength(2);
      expect(problems.some((p) => p.startsWith('KAFKA_BROKERS'))).toBe(true);
      expect(problems.some((p) => p.startsWith('KAFKA_TOPIC'))).toBe(true);
    });
  });
});
