import { auditRecorderFor } from '../../support/fakes/audit-recorder';
/**
 * Issue #22: one user's events reach Kafka in the order their changes committed, even when the replicas
 * that made them disagree about the time. Two replicas (a data source, a unit of work, a clock and an id
 * generator each) share one database; replica A's clock runs seconds ahead, so the UUIDv7 ids it gives
 * events sort after those replica B gives later. A deactivates a user, then B reactivates it: the topic
 * must say deactivated, then reactivated, and number the user's events 1, 2, 3, … (`subjectsequence`).
 */
import { v7 } from 'uuid';
import type { DataSource } from 'typeorm';
import type { Clock } from '../../../src/application/ports/clock.port';
import type { IdGenerator } from '../../../src/application/ports/id-generator.port';
import { DeactivateUserUseCase } from '../../../src/application/users/deactivate-user.use-case';
import { ReactivateUserUseCase } from '../../../src/application/users/reactivate-user.use-case';
import { Permissions } from '../../../src/domain/permissions/permission';
import type { CloudEvent } from '../../../src/infrastructure/messaging/cloud-event';
import { KafkaEventPublisher } from '../../../src/infrastructure/messaging/kafka-event-publisher';
import { OutboxRelay } from '../../../src/infrastructure/messaging/outbox-relay';
import { createDataSource } from '../../../src/infrastructure/persistence/typeorm/data-source';
import { runMigrations } from '../../../src/infrastructure/persistence/typeorm/migrate';
import { TypeOrmRoleRepository } from '../../../src/infrastructure/persistence/typeorm/typeorm-role.repository';
import { createTestDatabase, mysqlServerUrl, serverUrl, type TestDatabase } from '../../support/test-database';
import { TypeOrmAdapters } from '../../support/typeorm-adapters';
import { capturingLogger, createTopic, eventually, kafkaBrokers, startReader, uniqueTopic } from './kafka-test-kit';
import { UserLifecycle } from './user-lifecycle';

/** How far replica A's clock is ahead: NTP keeps replicas closer, but a VM resumed or a step correction does not. */
const SKEW_MS = 5_000;

/** The system time moved by `offsetMs`: what the Clock port and UUIDv7 ids read on a replica whose clock is off. */
class SkewedClock implements Clock, IdGenerator {
  constructor(private readonly offsetMs: number) {}

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  next(): string {
    return v7({ msecs: Date.now() + this.offsetMs });
  }
}

interface Replica {
  dataSource: DataSource;
  deactivate: DeactivateUserUseCase;
  reactivate: ReactivateUserUseCase;
  lifecycle: UserLifecycle;
}

const ADMIN = { userId: '019a0000-0000-7000-8000-0000000000ad', permissions: Object.values(Permissions) };

describe.each([
  ['MariaDB', serverUrl],
  ['MySQL 8', mysqlServerUrl],
])('one user\'s events across replicas with skewed clocks (%s)', (_name, server) => {
  let database: TestDatabase;
  const cleanups: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('ac_order', server());
  });

  afterAll(async () => {
    await database?.drop();
  });

  afterEach(async () => {
    while (cleanups.length > 0) await cleanups.pop()!().catch(() => undefined);
  });

  async function replica(offsetMs: number): Promise<Replica> {
    const dataSource = createDataSource(database.config, { poolSize: 3 });
    await dataSource.initialize();
    cleanups.push(() => dataSource.destroy());
    await runMigrations(dataSource);
    const clock = new SkewedClock(offsetMs);
    const adapters = new TypeOrmAdapters(dataSource, { clock });
    const unitOfWork = adapters.unitOfWork();
    const roleRepository = new TypeOrmRoleRepository({ manager: dataSource.manager, sqliteWriteQueue: adapters.services.sqliteWriteQueue });
    // Ids from the replica's own generator: two replicas never hand out the same one, for events or entries.
    const { auditRecorder } = auditRecorderFor({ clock, idGenerator: clock });
    const deps = { auditRecorder, roleRepository, unitOfWork, clock, idGenerator: clock };
    return { dataSource, deactivate: new DeactivateUserUseCase(deps), reactivate: new ReactivateUserUseCase(deps), lifecycle: new UserLifecycle(unitOfWork) };
  }

  function relayOn(dataSource: DataSource, topic: string): OutboxRelay {
    const logger = capturingLogger('warn').logger;
    const publisher = new KafkaEventPublisher({ brokers: kafkaBrokers(), topic, clientId: 'event-order-test', logger });
    const relay = new OutboxRelay({ dataSource, publisher, logger, pollIntervalMs: 50 });
    cleanups.push(() => publisher.close());
    cleanups.push(() => relay.stop());
    return relay;
  }

  it('publishes a deactivation on the fast replica and a later reactivation on the other in commit order, numbered 1, 2, 3, …', async () => {
    const ahead = await replica(SKEW_MS);
    const onTime = await replica(0);
    const topic = uniqueTopic('event-order');
    await createTopic(topic, 3);

    const invited = await onTime.lifecycle.invite('ada.skew@example.com', 'Ada');
    const userId = invited.userId;
    await onTime.lifecycle.join(userId, 'ada.skew');
    await ahead.deactivate.execute({ actor: ADMIN, userId });
    await onTime.reactivate.execute({ actor: ADMIN, userId });

    // What the test is about: the later change has the smaller id.
    const rows = (await onTime.dataSource.query('SELECT id, type FROM outbox_events WHERE aggregate_id = ? ORDER BY id', [userId])) as {
      id: string;
      type: string;
    }[];
    expect(rows.map((r) => r.type)).toEqual(['UserInvited', 'UserJoined', 'UserReactivated', 'UserDeactivated']);

    // Both replicas run their relay, as the service does (RELAY_ENABLED on every replica).
    const relays = [relayOn(ahead.dataSource, topic), relayOn(onTime.dataSource, topic)];
    const reader = await startReader(topic);
    cleanups.push(() => reader.stop());
    relays.forEach((relay) => relay.start());
    const received = await reader.waitFor(4, 30_000);
    await eventually(
      async () => (await onTime.dataSource.query('SELECT COUNT(*) AS n FROM outbox_events WHERE published_at IS NULL')) as { n: number | string }[],
      ([row]) => Number(row?.n) === 0,
      10_000,
    );

    const events = received.filter((m) => m.key === userId).map((m) => JSON.parse(m.value) as CloudEvent<Record<string, unknown>>);
    expect(new Set(received.map((m) => m.partition)).size).toBe(1);
    expect(events.map((e) => e.type)).toEqual(['UserInvited', 'UserJoined', 'UserDeactivated', 'UserReactivated']);
    expect(events.map((e) => e.subjectsequence)).toEqual([1, 2, 3, 4]);
    expect(events.every((e) => e.subject === userId)).toBe(true);
  }, 60_000);
});
