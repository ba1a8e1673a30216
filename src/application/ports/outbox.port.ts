import type { DomainEvent } from '../../domain/shared/domain-event';

/**
 * Events saved with the change that caused them; a relay publishes them after commit.
 * Each aggregate's events are numbered 1, 2, 3, … in the order their runs commit, with no gap (a
 * run that rolls back uses up no number): the order the relay publishes them in, whatever the
 * clocks of the replicas that wrote them (their ids are UUIDv7 and may disagree).
 */
export interface Outbox {
  append(events: readonly DomainEvent[]): Promise<void>;
}
