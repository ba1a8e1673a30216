/**
 * The event contract other services consume: CloudEvents 1.0, structured mode, JSON.
 * Kafka key = the user id (`subject`), so one user's events stay in order.
 * Documented in docs/events (JSON Schema per type) and docs/asyncapi.yaml.
 */
export interface CloudEvent<D = unknown> {
  specversion: '1.0';
  id: string;
  type: string;
  source: string;
  time: string;
  subject: string;
  datacontenttype: 'application/json';
  dataschema?: string;
  data: D;
}

/** An outbox row as the relay reads it. */
export interface OutboxMessage {
  id: string;
  aggregateId: string;
  type: string;
  /** JSON text of the event's data. */
  payload: string;
  occurredAt: Date;
}

/** Where the relay hands committed events: Kafka, or the in-process bus of the embedded default. */
export interface EventPublisher {
  /** Resolves when every event is durably accepted; rejects (and nothing counts as published) otherwise. */
  publish(events: readonly CloudEvent[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * The embedded default's bus: `publish` hands each event to every subscriber in turn and awaits
 * them, so a subscriber's failure fails the publish and the outbox keeps the event for a retry.
 */
export interface InProcessEventBus extends EventPublisher {
  subscribe(handler: (event: CloudEvent) => Promise<void>): () => void;
}

/** Event types the service emits, and the types the mailer acts on. */
export const EVENT_TYPES = ['UserInvited', 'UserJoined', 'UserInvitationResent', 'UserInvitationRevoked'] as const;
export const MAIL_EVENT_TYPES: readonly string[] = ['UserInvited', 'UserInvitationResent'];
