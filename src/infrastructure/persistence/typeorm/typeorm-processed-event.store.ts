import type { EntityManager } from 'typeorm';
import type { ProcessedEventStore } from '../../../application/ports/processed-event-store.port';
import { uniqueViolationOn } from './database-errors';
import { ProcessedEventSchema } from './records';

export class TypeOrmProcessedEventStore implements ProcessedEventStore {
  constructor(private readonly manager: EntityManager) {}

  async has(consumer: string, eventId: string): Promise<boolean> {
    return this.manager.getRepository(ProcessedEventSchema).exists({ where: { consumer, eventId } });
  }

  async record(consumer: string, eventId: string, at: Date): Promise<void> {
    try {
      await this.manager.getRepository(ProcessedEventSchema).insert({ consumer, eventId, processedAt: at });
    } catch (error) {
      // Recorded already (a redelivery raced us): that is the state we want.
      if (uniqueViolationOn(error) === null) throw error;
    }
  }
}
