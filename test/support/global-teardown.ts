import type { DatabaseServerHandle } from './database-server';
import type { KafkaHandle } from './kafka';

export default async function globalTeardown(): Promise<void> {
  const started = (globalThis as { __services?: { database?: DatabaseServerHandle; kafka?: KafkaHandle } }).__services;
  await started?.kafka?.stop();
  await started?.database?.stop();
}
