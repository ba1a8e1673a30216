/**
 * The event contract other services consume: CloudEvents 1.0, structured mode, JSON.
 * Kafka key = the aggregate's id (`subject`: the user's, or the role's for Role* events), so its events stay in order.
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
  /** Extension attribute: the x-request-id of the HTTP request that caused the event, when there was one. */
  requestid?: string;
  /**
   * Extension attribute: this event's place among the events of its `subject` (1, 2, 3, … with no gap), in
   * the order their changes committed. Absent only on events recorded before the version that numbers them.
   */
  subjectsequence?: number;
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
  /** x-request-id of the causing request; null or absent when none. */
  requestId?: string | null;
  /** The event's place among its aggregate's events (`subjectsequence`); null or absent on rows of an older version. */
  sequence?: number | null;
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
export const EVENT_TYPES = [
  'UserInvited',
  'UserJoined',
  'UserInvitationResent',
  'UserInvitationRevoked',
  'UserUpdated',
  'UserRoleChanged',
  'UserDeactivated',
  'UserReactivated',
  'UserDeleted',
  'RoleCreated',
  'RoleChanged',
  'RoleDeleted',
  'PasswordResetRequested',
  'ServiceAccountCreated',
  'ServiceAccountChanged',
  'ServiceAccountDeleted',
  'ServiceAccountSecretAdded',
  'ServiceAccountSecretRemoved',
  'ServiceAccountKeysChanged',
  'UserMfaEnrolled',
  'UserMfaRemoved',
] as const;
/**
 * An audit entry (#23), published through the outbox to a topic of its own (KAFKA_AUDIT_TOPIC), never to
 * the user events' one: docs/events/AuditEventRecorded.schema.json, the `auditEvents` channel of docs/asyncapi.yaml.
 */
export const AUDIT_EVENT_TYPE = 'AuditEventRecorded';
export const MAIL_EVENT_TYPES: readonly string[] = ['UserInvited', 'UserInvitationResent', 'PasswordResetRequested'];

/** Default CloudEvents `source`: stable across deployments, unlike a PUBLIC_URL. */
export const DEFAULT_EVENT_SOURCE = '/access-control';

/** Version of the event contract; it is also the suffix of the default topic (`….v1`). */
export const EVENT_CONTRACT_VERSION = 'v1';

/** Kafka `content-type` header of a structured-mode CloudEvent. */
export const CLOUD_EVENT_CONTENT_TYPE = 'application/cloudevents+json; charset=UTF-8';

/**
 * The `dataschema` of a known event type: the `$id` of docs/events/<type>.schema.json.
 * Stable per type and contract version (additive changes keep it).
 */
export function dataSchemaFor(type: string): string | undefined {
  return (EVENT_TYPES as readonly string[]).includes(type) || type === AUDIT_EVENT_TYPE
    ? `urn:access-control:events:${type}:${EVENT_CONTRACT_VERSION}`
    : undefined;
}

/** Thrown when an outbox row's payload is not the JSON object it must be. */
export class MalformedOutboxPayloadError extends Error {
  constructor(readonly eventId: string) {
    super(`outbox event ${eventId} has a payload that is not a JSON object`);
    this.name = 'MalformedOutboxPayloadError';
  }
}

/**
 * The CloudEvent of an outbox row: `id` = the row id, `subject` = the user id (the role id for Role*),
 * `subjectsequence` = the row's number among its aggregate's events, `data` = the parsed payload.
 */
export function toCloudEvent(message: OutboxMessage, source: string = DEFAULT_EVENT_SOURCE): CloudEvent {
  let data: unknown;
  try {
    data = JSON.parse(message.payload);
  } catch {
    throw new MalformedOutboxPayloadError(message.id);
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) throw new MalformedOutboxPayloadError(message.id);
  const dataschema = dataSchemaFor(message.type);
  return {
    specversion: '1.0',
    id: message.id,
    type: message.type,
    source,
    time: message.occurredAt.toISOString(),
    subject: message.aggregateId,
    datacontenttype: 'application/json',
    ...(dataschema !== undefined ? { dataschema } : {}),
    ...(message.requestId ? { requestid: message.requestId } : {}),
    ...(message.sequence ? { subjectsequence: message.sequence } : {}),
    data,
  };
}

/**
 * Kafka headers of an event: the structured-mode content type plus `ce_id`/`ce_type` for routing
 * without parsing, and `x-request-id` (tracing) when the event came from a request.
 */
export function kafkaHeadersFor(event: CloudEvent): Record<string, string> {
  return {
    'content-type': CLOUD_EVENT_CONTENT_TYPE,
    ce_id: event.id,
    ce_type: event.type,
    ...(event.requestid ? { 'x-request-id': event.requestid } : {}),
  };
}
