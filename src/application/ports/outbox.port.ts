import type { DomainEvent } from '../../domain/shared/domain-event';

/** Events saved with the change that caused them; a relay publishes them after commit. */
export interface Outbox {
  append(events: readonly DomainEvent[]): Promise<void>;
}
