import { provideDatabaseServer, type DatabaseServerHandle } from './database-server';
import { provideKafka, type KafkaHandle } from './kafka';

/**
 * Runs once before the integration and end-to-end tests: finds or starts the real services
 * they need and hands their addresses to the test workers through the environment.
 */
export default async function globalSetup(): Promise<void> {
  const log = (message: string) => process.stderr.write(`[setup] ${message}\n`);
  const started: { database?: DatabaseServerHandle; kafka?: KafkaHandle } = {};
  (globalThis as { __services?: typeof started }).__services = started;

  started.database = await provideDatabaseServer(log);
  process.env.TEST_DATABASE_SERVER_URL = started.database.url;

  started.kafka = await provideKafka({ log });
  process.env.KAFKA_BROKERS = started.kafka.brokers;
  process.env.KAFKA_SOURCE = started.kafka.source;
  log(`database from ${started.database.source}, kafka from ${started.kafka.source} at ${started.kafka.brokers}`);
}
