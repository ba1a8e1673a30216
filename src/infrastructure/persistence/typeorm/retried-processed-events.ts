import type { ProcessedEventStore } from '../../../application/ports/processed-event-store.port';
import { backoffDelay, sleepUnlessAborted } from '../../system/backoff';

/** The attempts of a record after a mail was accepted: 0.25 s doubling, about 8 s in all, well within a consumer's session. */
export const RECORD_ATTEMPTS = 6;

/**
 * The store the mailer records a sent mail's event in, its record tried again on a failure (the database away for a
 * moment) before the failure reaches the consumer. A record that fails makes the consumer handle the event again:
 * a second mail, with a new link that kills the one just sent. Retrying the record alone, right away, keeps a short
 * outage from doing that; a longer one, or a crash, still can (README, "Invitations and events").
 */
export class RetriedProcessedEvents implements ProcessedEventStore {
  constructor(
    private readonly store: ProcessedEventStore,
    private readonly pause: (ms: number) => Promise<void> = (ms) => sleepUnlessAborted(ms),
  ) {}

  has(consumer: string, eventId: string): Promise<boolean> {
    return this.store.has(consumer, eventId);
  }

  async record(consumer: string, eventId: string, at: Date): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.store.record(consumer, eventId, at);
      } catch (error) {
        if (attempt >= RECORD_ATTEMPTS) throw error;
        await this.pause(backoffDelay(attempt, 250, 4_000));
      }
    }
  }
}
