import { ConfigError } from '../../infrastructure/config/config';
import { parseDurationSeconds } from '../../infrastructure/config/duration';
import { DEFAULT_MAILER_GROUP_ID, DEFAULT_MAILS_IN_FLIGHT, defaultDeadLetterTopic } from './invitation-mail-worker';

/** Settings only the mailer process reads, validated like the rest of the configuration. */
export interface MailerSettings {
  groupId: string;
  deadLetterTopic: string;
  retryMaxDelayMs: number;
  partitionsConsumedConcurrently: number;
  /** Messages of different users handled at once within a partition. */
  mailsInFlightPerPartition: number;
  /** Port of the mailer's own GET /metrics (0: any free port). */
  metricsPort: number;
}

export const MAILER_VARIABLES = ['MAILER_GROUP_ID', 'MAILER_DLQ_TOPIC', 'MAILER_RETRY_MAX', 'MAILER_CONCURRENCY', 'MAILER_IN_FLIGHT', 'MAILER_METRICS_PORT'] as const;

const TOPIC = /^[A-Za-z0-9._-]{1,249}$/;
const GROUP = /^[A-Za-z0-9._-]{1,255}$/;

/**
 * The mailer's dead-letter topic (MAILER_DLQ_TOPIC, default `<KAFKA_TOPIC>.mailer-dlq`), on its own:
 * the migrate step creates it too, and reads nothing else of the mailer's settings.
 */
export function loadDeadLetterTopic(eventsTopic: string, env: Record<string, string | undefined> = process.env): string {
  const problems: string[] = [];
  const topic = deadLetterTopicOf(eventsTopic, env, problems);
  if (problems.length > 0) throw new ConfigError(problems);
  return topic;
}

function deadLetterTopicOf(eventsTopic: string, env: Record<string, string | undefined>, problems: string[]): string {
  const deadLetterTopic = env.MAILER_DLQ_TOPIC?.trim() || defaultDeadLetterTopic(eventsTopic);
  if (!TOPIC.test(deadLetterTopic)) problems.push(`MAILER_DLQ_TOPIC must be a Kafka topic name: 1 to 249 of letters, digits, ".", "_", "-" (got "${deadLetterTopic}")`);
  else if (deadLetterTopic === eventsTopic) problems.push('MAILER_DLQ_TOPIC must differ from KAFKA_TOPIC');
  return deadLetterTopic;
}

export function loadMailerSettings(eventsTopic: string, env: Record<string, string | undefined> = process.env): MailerSettings {
  const problems: string[] = [];
  const get = (name: string) => {
    const value = env[name]?.trim();
    return value ? value : undefined;
  };

  const groupId = get('MAILER_GROUP_ID') ?? DEFAULT_MAILER_GROUP_ID;
  if (!GROUP.test(groupId)) problems.push(`MAILER_GROUP_ID must be 1 to 255 of letters, digits, ".", "_", "-" (got "${groupId}")`);

  const deadLetterTopic = deadLetterTopicOf(eventsTopic, env, problems);

  const retryRaw = get('MAILER_RETRY_MAX') ?? '60s';
  const retrySeconds = parseDurationSeconds(retryRaw);
  if (retrySeconds === null || retrySeconds < 1 || retrySeconds > 3600) {
    problems.push(`MAILER_RETRY_MAX must be a duration from 1s to 1h, such as 30s or 5m (got "${retryRaw}")`);
  }

  const concurrencyRaw = get('MAILER_CONCURRENCY') ?? '2';
  const concurrency = Number(concurrencyRaw);
  if (!/^\d+$/.test(concurrencyRaw) || concurrency < 1 || concurrency > 64) {
    problems.push(`MAILER_CONCURRENCY must be an integer from 1 to 64 (got "${concurrencyRaw}")`);
  }

  const inFlightRaw = get('MAILER_IN_FLIGHT') ?? String(DEFAULT_MAILS_IN_FLIGHT);
  const inFlight = Number(inFlightRaw);
  if (!/^\d+$/.test(inFlightRaw) || inFlight < 1 || inFlight > 256) {
    problems.push(`MAILER_IN_FLIGHT must be an integer from 1 to 256 (got "${inFlightRaw}")`);
  }

  const metricsPortRaw = get('MAILER_METRICS_PORT') ?? '9464';
  const metricsPort = Number(metricsPortRaw);
  if (!/^\d+$/.test(metricsPortRaw) || metricsPort > 65535) {
    problems.push(`MAILER_METRICS_PORT must be an integer from 0 to 65535 (got "${metricsPortRaw}")`);
  }

  if (problems.length > 0) throw new ConfigError(problems);
  return {
    groupId,
    deadLetterTopic,
    retryMaxDelayMs: Math.round((retrySeconds ?? 60) * 1000),
    partitionsConsumedConcurrently: concurrency,
    mailsInFlightPerPartition: inFlight,
    metricsPort,
  };
}
