import type { DatabaseServerHandle } from './database-server';
import type { KafkaHandle } from './kafka';
import type { MySqlServerHandle } from './mysql-server';
import { reportCoverage } from './openapi-coverage';

export default async function globalTeardown(): Promise<void> {
  reportCoverage((line) => process.stderr.write(`${line}\n`));
  const started = (globalThis as { __services?: { database?: DatabaseServerHandle; kafka?: KafkaHandle; mysql?: MySqlServerHandle } })
    .__services;
  await started?.kafka?.stop();
  await started?.mysql?.stop();
  await started?.database?.stop();
}
