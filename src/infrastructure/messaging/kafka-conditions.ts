import { describeError } from '../logging/logger';

/**
 * What a Kafka client failure says about the cluster, for a process that waits it out instead of
 * dying: one word to log and report on a health endpoint, and whether waiting can help.
 *
 * - `broker-unreachable`: no connection, a timeout, no leader yet: the broker is not up (yet) or went away.
 * - `topic-missing`: UNKNOWN_TOPIC_OR_PARTITION: nobody created the topic yet (see `npm run migrate`).
 * - `coordinator-unavailable`: the group coordinator is loading or moving (a fresh or restarted broker).
 * - `not-authorized`: the cluster refuses this client; waiting helps only once someone changes the ACLs.
 * - `refused`: the broker refused the request itself (a replication factor above the broker count, …).
 * - `unexpected`: anything else.
 */
export type KafkaConditionKind = 'broker-unreachable' | 'topic-missing' | 'coordinator-unavailable' | 'not-authorized' | 'refused' | 'unexpected';

export interface KafkaCondition {
  kind: KafkaConditionKind;
  /** true when the same request can succeed later without anyone doing anything (not known for `unexpected`: false). */
  retriable: boolean;
  /** Log-safe text of the innermost error (no credentials). */
  reason: string;
}

const CONNECTION_ERRORS = new Set([
  'KafkaJSConnectionError',
  'KafkaJSConnectionClosedError',
  'KafkaJSRequestTimeoutError',
  'KafkaJSBrokerNotFound',
  'KafkaJSNoBrokerAvailableError',
  'KafkaJSMetadataNotLoaded',
  'KafkaJSTopicMetadataNotLoaded',
  'KafkaJSStaleTopicMetadataAssignment',
  'KafkaJSLockTimeout',
  'KafkaJSTimeout',
]);
const COORDINATOR_TYPES = new Set(['GROUP_COORDINATOR_NOT_AVAILABLE', 'NOT_COORDINATOR_FOR_GROUP', 'GROUP_LOAD_IN_PROGRESS']);
const UNREACHABLE_TYPES = new Set(['LEADER_NOT_AVAILABLE', 'NOT_LEADER_FOR_PARTITION', 'REQUEST_TIMED_OUT', 'NOT_CONTROLLER', 'BROKER_NOT_AVAILABLE']);

interface KafkaJsLike {
  name?: string;
  type?: string;
  retriable?: boolean;
  cause?: unknown;
  errors?: unknown[];
}

/** The errors a kafkajs error wraps, outermost first (retries exceeded → its cause → …, aggregates flattened). */
function chainOf(error: unknown): KafkaJsLike[] {
  const chain: KafkaJsLike[] = [];
  const queue: unknown[] = [error];
  while (queue.length > 0 && chain.length < 20) {
    const next = queue.shift();
    if (next === null || typeof next !== 'object' || chain.includes(next as KafkaJsLike)) continue;
    const e = next as KafkaJsLike;
    chain.push(e);
    if (e.cause !== undefined) queue.push(e.cause);
    if (Array.isArray(e.errors)) queue.push(...e.errors);
  }
  return chain;
}

export function kafkaConditionOf(error: unknown): KafkaCondition {
  if (error instanceof TopicMissingError) return { kind: 'topic-missing', retriable: true, reason: error.message };
  const chain = chainOf(error);
  const innermost = chain[chain.length - 1] ?? error;
  const reason = describeError(innermost);
  const types = chain.map((e) => e.type).filter((type): type is string => typeof type === 'string');
  const names = chain.map((e) => e.name);
  if (types.includes('UNKNOWN_TOPIC_OR_PARTITION')) return { kind: 'topic-missing', retriable: true, reason };
  if (types.some((type) => type.endsWith('_AUTHORIZATION_FAILED')) || names.includes('KafkaJSSASLAuthenticationError')) {
    return { kind: 'not-authorized', retriable: false, reason };
  }
  if (types.some((type) => COORDINATOR_TYPES.has(type)) || names.includes('KafkaJSGroupCoordinatorNotFound')) {
    return { kind: 'coordinator-unavailable', retriable: true, reason };
  }
  if (types.some((type) => UNREACHABLE_TYPES.has(type)) || names.some((name) => name !== undefined && CONNECTION_ERRORS.has(name))) {
    return { kind: 'broker-unreachable', retriable: true, reason };
  }
  const protocolError = chain.find((e) => e.name === 'KafkaJSProtocolError' || e.name === 'KafkaJSCreateTopicError');
  if (protocolError) return { kind: protocolError.retriable === false ? 'refused' : 'broker-unreachable', retriable: protocolError.retriable !== false, reason };
  return { kind: 'unexpected', retriable: false, reason };
}

/** The events topic is not there: raised by a check before subscribing, so the wait says why. */
export class TopicMissingError extends Error {
  constructor(readonly topic: string) {
    super(`topic ${topic} does not exist (created by \`npm run migrate\`, or the API with MIGRATE_ON_START=true)`);
    this.name = 'TopicMissingError';
  }
}
