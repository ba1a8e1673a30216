import { EventEmitter } from 'node:events';
import type { Consumer, Kafka } from 'kafkajs';
import { ConsumerSupervisor } from '../../../../src/infrastructure/messaging/consumer/consumer-supervisor';
import { createLogger } from '../../../../src/infrastructure/logging/logger';

/** kafkajs' consumer as the supervisor uses it: its events, emitted by the test as kafkajs would. */
class FakeConsumer extends EventEmitter {
  readonly events = { CRASH: 'crash', GROUP_JOIN: 'group_join', REQUEST_TIMEOUT: 'request_timeout', FETCH: 'fetch', HEARTBEAT: 'heartbeat' };
  async connect() {}
  async subscribe() {}
  async disconnect() {}
  fire(event: keyof FakeConsumer['events'], payload: object = {}) {
    this.emit(this.events[event], { payload });
  }
}

function world() {
  const consumer = new FakeConsumer();
  const lines: { msg: string }[] = [];
  const kafka = { consumer: () => consumer } as unknown as Kafka;
  const probe = { admin: () => ({ connect: async () => {}, listTopics: async () => ['events'], disconnect: async () => {} }) } as unknown as Kafka;
  const supervisor = new ConsumerSupervisor({
    kafka,
    probe,
    topic: 'events',
    groupId: 'mailer',
    fromBeginning: true,
    logger: createLogger('info', { write: (line: string) => lines.push(JSON.parse(line) as { msg: string }) }),
    consumer: { sessionTimeoutMs: 30_000, heartbeatIntervalMs: 3_000, maxWaitTimeMs: 2_000 },
    run: async (_consumer: Consumer) => {},
  });
  return { consumer, supervisor, lines };
}

describe('ConsumerSupervisor: a broker that takes requests and never answers', () => {
  it('is not ready from a request that timed out until a fetch or a heartbeat is answered, and says so once each way', async () => {
    const { consumer, supervisor, lines } = world();
    const started = supervisor.start();
    await new Promise((resolve) => setImmediate(resolve));
    consumer.fire('GROUP_JOIN', { groupId: 'mailer', memberId: 'm1', memberAssignment: {} });
    await started;
    expect(supervisor.status()).toMatchObject({ ready: true, state: 'consuming' });

    consumer.fire('REQUEST_TIMEOUT', { broker: 'kafka:9092', apiName: 'Fetch' });
    consumer.fire('REQUEST_TIMEOUT', { broker: 'kafka:9092', apiName: 'Heartbeat' });
    expect(supervisor.status()).toMatchObject({ ready: false, state: 'waiting', condition: 'broker-unreachable' });
    expect(lines.filter((line) => line.msg.startsWith('not consuming')).map((line) => line.msg)).toEqual(['not consuming: Kafka does not answer; the consumer keeps trying']);

    consumer.fire('FETCH', { numberOfBatches: 0 });
    expect(supervisor.status()).toMatchObject({ ready: true, state: 'consuming' });
    expect(lines.filter((line) => line.msg === 'consuming again')).toHaveLength(1);
    // An answered fetch or heartbeat while consuming changes nothing.
    consumer.fire('HEARTBEAT');
    expect(lines.filter((line) => line.msg === 'consuming again')).toHaveLength(1);

    consumer.fire('REQUEST_TIMEOUT', { broker: 'kafka:9092' });
    consumer.fire('HEARTBEAT');
    expect(supervisor.status()).toMatchObject({ ready: true, state: 'consuming' });
    await supervisor.stop();
  });
});
