// `npm run migrate`: the migration job of a deployment (database migrations, then the Kafka topics when KAFKA_BROKERS is set).
// First: dependencies installed for another node stop the start here, before an addon crashes it.
import '../installed-node-guard';
import { runCli } from './cli';

void runCli(['migrate']).then((code) => process.exit(code));
