import {
  KafkaJSConnectionError,
  KafkaJSGroupCoordinatorNotFound,
  KafkaJSNonRetriableError,
  KafkaJSNumberOfRetriesExceeded,
  KafkaJSProtocolError,
} from 'kafkajs';
import { kafkaConditionOf, TopicMissingError } from '../../../src/infrastructure/messaging/kafka-conditions';

/** A broker's error answer, as kafkajs raises it (the fields its protocol table gives each code). */
function protocolError(type: string, retriable: boolean): Error {
  return new KafkaJSProtocolError({ type, retriable, code: 0, message: `${type} from the broker` } as unknown as Error);
}

/** kafkajs' error classes take more than their typings say (a cause, a message). */
type Wrapping = new (error: Error | string, options?: { cause?: unknown; retryCount?: number; retryTime?: number }) => Error & { cause?: unknown };

/** What kafkajs raises once its retries are spent, wrapped again by an outer retrier (as its retry module does). */
function afterRetries(cause: Error): Error {
  const exceeded = new (KafkaJSNumberOfRetriesExceeded as unknown as Wrapping)(cause, { retryCount: 5, retryTime: 5_000 });
  return new (KafkaJSNonRetriableError as unknown as Wrapping)(exceeded, { cause: exceeded.cause ?? exceeded });
}

describe('kafkaConditionOf', () => {
  it.each([
    ['a missing topic', protocolError('UNKNOWN_TOPIC_OR_PARTITION', true), 'topic-missing', true],
    ['a missing topic after retries', afterRetries(protocolError('UNKNOWN_TOPIC_OR_PARTITION', true)), 'topic-missing', true],
    ['a refused connection after retries', afterRetries(new KafkaJSConnectionError('Connection error: connect ECONNREFUSED 127.0.0.1:9092')), 'broker-unreachable', true],
    ['no leader yet', protocolError('LEADER_NOT_AVAILABLE', true), 'broker-unreachable', true],
    ['a coordinator loading', afterRetries(protocolError('GROUP_LOAD_IN_PROGRESS', true)), 'coordinator-unavailable', true],
    ['no coordinator', new (KafkaJSGroupCoordinatorNotFound as unknown as Wrapping)('Failed to find group coordinator'), 'coordinator-unavailable', true],
    ['an ACL', protocolError('TOPIC_AUTHORIZATION_FAILED', false), 'not-authorized', false],
    ['a replication factor above the broker count', protocolError('INVALID_REPLICATION_FACTOR', false), 'refused', false],
    ['a bug', new TypeError('x is not a function'), 'unexpected', false],
  ])('%s', (_what, error, kind, retriable) => {
    expect(kafkaConditionOf(error)).toMatchObject({ kind, retriable });
  });

  it('names the topic the mailer waits for', () => {
    expect(kafkaConditionOf(new TopicMissingError('user-events'))).toMatchObject({ kind: 'topic-missing', reason: expect.stringContaining('user-events') });
  });

  it('gives the innermost reason, without credentials', () => {
    const condition = kafkaConditionOf(afterRetries(new KafkaJSConnectionError('Connection error: sasl://user:secret@broker:9092')));
    expect(condition.reason).toContain('KafkaJSConnectionError');
    expect(condition.reason).not.toContain('secret');
  });
});
