// `npm run migrate`: the migration job of a deployment (database migrations, then the Kafka topics when KAFKA_BROKERS is set).
import { runCli } from './cli';

void runCli(['migrate']).then((code) => process.exit(code));
