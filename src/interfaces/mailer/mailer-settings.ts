import { ConfigError } from '../../infrastructure/config/config';
import { MAILER_VARIABLES, readVariables } from '../../infrastructure/config/variables';
import { defaultDeadLetterTopic } from '../../infrastructure/messaging/consumer/kafka-mail-worker';

/** Settings only the mailer process reads: the MAILER_* rows of the configuration's one table (infrastructure/config/variables.ts). */
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

export { MAILER_VARIABLES };

/** MAILER_DLQ_TOPIC's default depends on KAFKA_TOPIC; it is checked like a given name. */
const derivedDefaults = (eventsTopic: string) => ({ MAILER_DLQ_TOPIC: defaultDeadLetterTopic(eventsTopic) });

function checkDistinct(deadLetterTopic: string | undefined, eventsTopic: string, problems: string[]): void {
  if (deadLetterTopic === eventsTopic) problems.push('MAILER_DLQ_TOPIC must differ from KAFKA_TOPIC');
}

/**
 * The mailer's dead-letter topic (MAILER_DLQ_TOPIC, default `<KAFKA_TOPIC>.mailer-dlq`), on its own:
 * the migrate step creates it too, and reads nothing else of the mailer's settings.
 */
export function loadDeadLetterTopic(eventsTopic: string, env: Record<string, string | undefined> = process.env): string {
  const { values, problems } = readVariables(['MAILER_DLQ_TOPIC'], env, derivedDefaults(eventsTopic));
  checkDistinct(values.MAILER_DLQ_TOPIC, eventsTopic, problems);
  if (problems.length > 0) throw new ConfigError(problems);
  return values.MAILER_DLQ_TOPIC!;
}

export function loadMailerSettings(eventsTopic: string, env: Record<string, string | undefined> = process.env): MailerSettings {
  const { values: v, problems } = readVariables(MAILER_VARIABLES, env, derivedDefaults(eventsTopic));
  checkDistinct(v.MAILER_DLQ_TOPIC, eventsTopic, problems);
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    groupId: v.MAILER_GROUP_ID,
    deadLetterTopic: v.MAILER_DLQ_TOPIC!,
    retryMaxDelayMs: Math.round(v.MAILER_RETRY_MAX * 1000),
    partitionsConsumedConcurrently: v.MAILER_CONCURRENCY,
    mailsInFlightPerPartition: v.MAILER_IN_FLIGHT,
    metricsPort: v.MAILER_METRICS_PORT,
  };
}
