import { provideDatabaseServer, type DatabaseServerHandle } from './database-server';
import { provideKafka, type KafkaHandle } from './kafka';
import { provideMySqlServer, type MySqlServerHandle } from './mysql-server';
import { startCoverage } from './openapi-coverage';

/**
 * Runs once before the integration and end-to-end tests: finds or starts the real services
 * they need and hands their addresses to the test workers through the environment.
 */
export default async function globalSetup(): Promise<void> {
  const log = (message: string) => process.stderr.write(`[setup] ${message}\n`);
  const started: { database?: DatabaseServerHandle; kafka?: KafkaHandle; mysql?: MySqlServerHandle } = {};
  (globalThis as { __services?: typeof started }).__services = started;
  startCoverage();

  // Started beside the others: initializing its datadir takes seconds of its own.
  const mysql = provideMySqlServer();
  mysql.catch(() => undefined); // awaited below; a failure of the others first must not leave it unhandled

  started.database = await provideDatabaseServer(log);
  process.env.TEST_DATABASE_SERVER_URL = started.database.url;

  started.kafka = await provideKafka({ log });
  process.env.KAFKA_BROKERS = started.kafka.brokers;
  process.env.KAFKA_SOURCE = started.kafka.source;

  started.mysql = await mysql;
  process.env.TEST_MYSQL_SERVER_URL = started.mysql.url;
  log(
    `database from ${started.database.source}, kafka from ${started.kafka.source} at ${started.kafka.brokers}, ` +
      `MySQL ${started.mysql.version} from ${started.mysql.source}`,
  );
}
