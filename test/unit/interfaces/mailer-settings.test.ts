import { CONFIG_VARIABLES, ConfigError } from '../../../src/infrastructure/config/config';
import { ENVIRONMENT } from '../../../src/infrastructure/config/variables';
import { DEFAULT_MAILER_GROUP_ID, DEFAULT_MAILS_IN_FLIGHT, defaultDeadLetterTopic } from '../../../src/infrastructure/messaging/consumer/kafka-mail-worker';
import { loadDeadLetterTopic, loadMailerSettings, MAILER_VARIABLES } from '../../../src/interfaces/mailer/mailer-settings';

const TOPIC = 'access-control.user-events.v1';

function problemsOf(load: () => unknown): string[] {
  try {
    load();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('loadMailerSettings', () => {
  it('defaults to what the worker itself defaults to', () => {
    expect(loadMailerSettings(TOPIC, {})).toEqual({
      groupId: DEFAULT_MAILER_GROUP_ID,
      deadLetterTopic: defaultDeadLetterTopic(TOPIC),
      retryMaxDelayMs: 60_000,
      partitionsConsumedConcurrently: 2,
      mailsInFlightPerPartition: DEFAULT_MAILS_IN_FLIGHT,
      metricsPort: 9464,
    });
    expect(ENVIRONMENT.MAILER_GROUP_ID.default).toBe(DEFAULT_MAILER_GROUP_ID);
    expect(ENVIRONMENT.MAILER_IN_FLIGHT.default).toBe(String(DEFAULT_MAILS_IN_FLIGHT));
  });

  it('reads good values, blank ones as unset', () => {
    const settings = loadMailerSettings(TOPIC, {
      MAILER_GROUP_ID: 'mailer.b',
      MAILER_DLQ_TOPIC: ' dead-letters ',
      MAILER_RETRY_MAX: '1500ms',
      MAILER_CONCURRENCY: '64',
      MAILER_IN_FLIGHT: '  ',
      MAILER_METRICS_PORT: '0',
    });

    expect(settings).toEqual({
      groupId: 'mailer.b',
      deadLetterTopic: 'dead-letters',
      retryMaxDelayMs: 1500,
      partitionsConsumedConcurrently: 64,
      mailsInFlightPerPartition: DEFAULT_MAILS_IN_FLIGHT,
      metricsPort: 0,
    });
  });

  it.each([
    ['MAILER_GROUP_ID', 'a group', 'MAILER_GROUP_ID must be 1 to 255 of letters, digits, ".", "_", "-" (got "a group")'],
    ['MAILER_DLQ_TOPIC', 'dead letters', 'MAILER_DLQ_TOPIC must be a Kafka topic name: 1 to 249 of letters, digits, ".", "_", "-" (got "dead letters")'],
    ['MAILER_DLQ_TOPIC', TOPIC, 'MAILER_DLQ_TOPIC must differ from KAFKA_TOPIC'],
    ['MAILER_RETRY_MAX', '500ms', 'MAILER_RETRY_MAX must be a duration from 1s to 1h, such as 30s or 5m (got "500ms")'],
    ['MAILER_RETRY_MAX', '2h', 'MAILER_RETRY_MAX must be a duration from 1s to 1h, such as 30s or 5m (got "2h")'],
    ['MAILER_CONCURRENCY', '0', 'MAILER_CONCURRENCY must be an integer from 1 to 64 (got "0")'],
    ['MAILER_CONCURRENCY', '1e1', 'MAILER_CONCURRENCY must be an integer from 1 to 64 (got "1e1")'],
    ['MAILER_IN_FLIGHT', '257', 'MAILER_IN_FLIGHT must be an integer from 1 to 256 (got "257")'],
    ['MAILER_METRICS_PORT', '65536', 'MAILER_METRICS_PORT must be an integer from 0 to 65535 (got "65536")'],
  ])('refuses %s=%j, naming it', (name, value, problem) => {
    expect(problemsOf(() => loadMailerSettings(TOPIC, { [name]: value }))).toEqual([problem]);
  });

  it('reports every problem together', () => {
    const env = { MAILER_GROUP_ID: 'a b', MAILER_RETRY_MAX: 'never', MAILER_CONCURRENCY: 'x', MAILER_IN_FLIGHT: '0', MAILER_METRICS_PORT: '-1' };

    const problems = problemsOf(() => loadMailerSettings(TOPIC, env));

    expect(problems).toHaveLength(5);
    for (const name of Object.keys(env)) expect(problems.some((p) => p.startsWith(name))).toBe(true);
  });

  it('checks the default dead-letter topic too: <KAFKA_TOPIC>.mailer-dlq may be too long', () => {
    const long = 't'.repeat(240);

    expect(problemsOf(() => loadMailerSettings(long, {}))).toEqual([
      `MAILER_DLQ_TOPIC must be a Kafka topic name: 1 to 249 of letters, digits, ".", "_", "-" (got "${long}.mailer-dlq")`,
    ]);
  });

  it('reads variables in CONFIG_VARIABLES only', () => {
    expect(CONFIG_VARIABLES).toEqual(expect.arrayContaining([...MAILER_VARIABLES]));
    expect(MAILER_VARIABLES.every((name) => name.startsWith('MAILER_'))).toBe(true);
  });
});

describe('loadDeadLetterTopic', () => {
  it('is <KAFKA_TOPIC>.mailer-dlq or MAILER_DLQ_TOPIC', () => {
    expect(loadDeadLetterTopic(TOPIC, {})).toBe(`${TOPIC}.mailer-dlq`);
    expect(loadDeadLetterTopic(TOPIC, { MAILER_DLQ_TOPIC: 'dlq' })).toBe('dlq');
  });

  it('reads nothing else of the mailer settings', () => {
    expect(loadDeadLetterTopic(TOPIC, { MAILER_CONCURRENCY: 'lots' })).toBe(`${TOPIC}.mailer-dlq`);
  });

  it('refuses the events topic itself', () => {
    expect(() => loadDeadLetterTopic(TOPIC, { MAILER_DLQ_TOPIC: TOPIC })).toThrow(/MAILER_DLQ_TOPIC must differ from KAFKA_TOPIC/);
  });
});
