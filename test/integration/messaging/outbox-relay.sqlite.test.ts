/**
 * The embedded default: SQLite (one process, one connection, no SKIP LOCKED) and the in-process
 * event bus. The relay reads and marks rows one statement at a time through the serializer the
 * unit of work uses, and holds nothing while subscribers run (they run transactions of their own).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import type { UnitOfWork } from '../../../src/application/ports/unit-of-work.port';
import type { CloudEvent } from '../../../src/infrastructure/messaging/cloud-event';
import { createInProcessEventBus, EventBusClosedError } from '../../../src/infrastructure/messaging/in-process-event-bus';
import { OutboxRelay } from '../../../src/infrastructure/messaging/outbox-relay';
import { createDataSource, hasBetterSqlite3 } from '../../../src/infrastructure/persistence/typeorm/data-source';
import { runMigrations } from '../../../src/infrastructure/persistence/typeorm/migrate';
import type { SqliteWriteQueue } from '../../../src/infrastructure/persistence/typeorm/sqlite-write-queue';
import { AdjustableClock } from '../../support/adjustable-clock';
import { TypeOrmAdapters } from '../../support/typeorm-adapters';
import { insertOutboxRows, interleavedRows, outboxCounts } from '../../support/outbox-fixtures';
import { capturingLogger, eventually, secretsIn } from './kafka-test-kit';
import { UserLifecycle } from './user-lifecycle';

const drivers = [...(hasBetterSqlite3() ? (['better-sqlite3'] as const) : []), 'sqljs' as const];

describe.each(drivers)('OutboxRelay on SQLite (%s) → in-process bus', (driver) => {
  let dir: string;
  let dataSource: DataSource;
  /** One queue for everything that touches the single SQLite connection: what the container wires. */
  let sqliteWriteQueue: SqliteWriteQueue;
  let exclusive: <T>(work: () => Promise<T>) => Promise<T>;
  let unitOfWork: UnitOfWork;

  beforeEach(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'ac-relay-sqlite-'));
    dataSource = createDataSource({ kind: 'sqlite', path: path.join(dir, 'relay.sqlite') }, { sqliteDriver: driver });
    await dataSource.initialize();
    await runMigrations(dataSource);
    const adapters = new TypeOrmAdapters(dataSource);
    sqliteWriteQueue = adapters.services.sqliteWriteQueue;
    exclusive = (work) => sqliteWriteQueue.serialize(work);
    unitOfWork = adapters.unitOfWork();
  });

  afterEach(async () => {
    if (dataSource.isInitialized) await dataSource.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses to run on SQLite without the unit of work\'s serializer', () => {
    expect(() => new OutboxRelay({ dataSource, publisher: createInProcessEventBus(), logger: capturingLogger().logger })).toThrow(/sqliteWriteQueue/);
  });

  it('leaves an event unpublished when a subscriber fails, and publishes it on the next pass', async () => {
    const bus = createInProcessEventBus();
    const { logger, lines } = capturingLogger('debug');
    const relay = new OutboxRelay({ dataSource, publisher: bus, logger, sqliteWriteQueue, backoff: { initialMs: 50, maxMs: 200 } });
    const seen: CloudEvent[] = [];
    const handled: string[] = [];
    let failuresLeft = 1;
    bus.subscribe(async (event) => {
      seen.push(event);
    });
    // Like the in-process mailer: a transaction of its own per event (recording it as processed).
    bus.subscribe(async (event) => {
      if (failuresLeft > 0) {
        failuresLeft -= 1;
        throw new Error('smtp: connection refused');
      }
      await unitOfWork.run(async (scope) => {
        if (!(await scope.processedEvents.has('test-mailer', event.id))) await scope.processedEvents.record('test-mailer', event.id, new Date());
      });
      handled.push(event.id);
    });

    const lifecycle = new UserLifecycle(unitOfWork);
    const invited = await lifecycle.invite('grace.hopper@example.com', 'Grace');

    await expect(relay.drainOnce()).rejects.toThrow('smtp: connection refused');
    const afterFailure = (await dataSource.query('SELECT id, published_at, attempts FROM outbox_events')) as {
      id: string;
      published_at: string | null;
      attempts: number;
    }[];
    expect(afterFailure).toEqual([{ id: invited.eventIds[0], published_at: null, attempts: 1 }]);
    expect(handled).toEqual([]);

    expect(await relay.drainOnce()).toBe(1);
    expect(await outboxCounts(dataSource)).toEqual({ total: 1, unpublished: 0 });
    expect(handled).toEqual(invited.eventIds);
    // At least once: the first subscriber saw the event in the failed pass too, and again now.
    expect(seen.map((e) => e.id)).toEqual([invited.eventIds[0], invited.eventIds[0]]);
    expect(seen[1]).toMatchObject({ specversion: '1.0', type: 'UserInvited', subject: invited.userId, source: '/access-control' });
    expect(seen[1]!.time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

    // The loop: nudged after commits, it publishes the user's next events in order; a failure
    // there is retried after a backoff, without anyone calling it again.
    failuresLeft = 1;
    relay.start();
    try {
      const joined = await lifecycle.join(invited.userId, 'grace.hopper');
      relay.nudge();
      const other = await lifecycle.invite('alan.turing@example.com');
      const resent = await lifecycle.resend(other.userId);
      const revoked = await lifecycle.revoke(other.userId);
      relay.nudge();
      const expected = [...joined.eventIds, ...other.eventIds, ...resent.eventIds, ...revoked.eventIds];
      const counts = await eventually(() => outboxCounts(dataSource), (c) => c.unpublished === 0, 10_000);
      expect(counts).toEqual({ total: 5, unpublished: 0 });
      expect(handled.slice(1).sort()).toEqual([...expected].sort());
      const otherEvents = seen.filter((e) => e.subject === other.userId);
      expect(otherEvents.map((e) => e.type).filter((t, i, all) => all.indexOf(t) === i)).toEqual([
        'UserInvited',
        'UserInvitationResent',
        'UserInvitationRevoked',
      ]);
      expect(seen.filter((e) => e.type === 'UserJoined').map((e) => e.data)).toContainEqual(
        expect.objectContaining({ username: 'grace.hopper', user_id: invited.userId }),
      );
      for (const event of seen) expect(secretsIn(JSON.stringify(event))).toEqual([]);
      const processed = (await dataSource.query('SELECT COUNT(*) AS n FROM processed_events')) as { n: number }[];
      expect(Number(processed[0]!.n)).toBe(5);
    } finally {
      await relay.stop();
    }
    expect(lines.some((l) => l.includes('backing off') && l.includes('smtp: connection refused'))).toBe(true);
    expect(lines.filter((l) => l.includes('@example.com'))).toEqual([]);
  });

  it('publishes what is committed while a nudged pass lingers in that one pass', async () => {
    const bus = createInProcessEventBus();
    const batches: number[] = [];
    const publisher = {
      publish: async (events: readonly CloudEvent[]) => {
        batches.push(events.length);
        await bus.publish(events);
      },
      close: async () => undefined,
    };
    // The relay's clock stands still, so neither its linger (a minute) nor its poll can end until the
    // test moves the clock: only the nudges and the clock decide when it publishes, not the machine's speed.
    const clock = new AdjustableClock();
    clock.freeze();
    let clockReads = 0;
    const counted = {
      now: () => {
        clockReads += 1;
        return clock.now();
      },
    };
    const relay = new OutboxRelay({ dataSource, publisher, logger: capturingLogger('warn').logger, sqliteWriteQueue, pollIntervalMs: 50, lingerMs: 60_000, clock: counted });
    relay.start();
    try {
      // Its first pass found nothing: asleep until nudged (a nudge before that would start a pass at once).
      expect(await eventually(async () => relay.status().idle, (idle) => idle, 5_000)).toBe(true);
      const rows = interleavedRows(5, 1);
      for (const row of rows) {
        await exclusive(() => insertOutboxRows(dataSource, [row]));
        relay.nudge(); // as every commit does
      }
      // Real time passes (the relay looks at its clock every poll interval), the linger does not.
      const readsSoFar = clockReads;
      await eventually(async () => clockReads, (reads) => reads >= readsSoFar + 3, 5_000);
      expect(batches).toEqual([]);
      clock.advance(60_000);
      await eventually(() => outboxCounts(dataSource), (c) => c.unpublished === 0, 5_000);
      expect(batches).toEqual([5]);
    } finally {
      await relay.stop();
    }
  });

  it('publishes many users\' events in id order per user, and flush() leaves nothing behind', async () => {
    const bus = createInProcessEventBus();
    const seen: CloudEvent[] = [];
    bus.subscribe(async (event) => {
      seen.push(event);
    });
    const rows = interleavedRows(20, 15);
    await exclusive(() => insertOutboxRows(dataSource, rows));
    const relay = new OutboxRelay({ dataSource, publisher: bus, logger: capturingLogger('warn').logger, sqliteWriteQueue, batchSize: 7 });

    expect(await relay.flush()).toBe(300);
    expect(await relay.flush()).toBe(0);
    expect(await outboxCounts(dataSource)).toEqual({ total: 300, unpublished: 0 });
    expect(seen).toHaveLength(300);
    for (const userId of new Set(rows.map((r) => r.aggregateId))) {
      expect(seen.filter((e) => e.subject === userId).map((e) => e.id)).toEqual(rows.filter((r) => r.aggregateId === userId).map((r) => r.id));
    }
  });

  it('holds back the events of a user whose row is not JSON, logs it without the payload, and publishes the others', async () => {
    const bus = createInProcessEventBus();
    const seen: string[] = [];
    bus.subscribe(async (event) => {
      seen.push(event.id);
    });
    const [stuck, fine] = [interleavedRows(1, 2), interleavedRows(1, 1)];
    const corrupt = { ...stuck[0]!, payload: '{"email":"secret.person@example.com", truncated' };
    await exclusive(() => insertOutboxRows(dataSource, [corrupt, stuck[1]!, fine[0]!]));
    const { logger, lines } = capturingLogger('debug');
    const relay = new OutboxRelay({ dataSource, publisher: bus, logger, sqliteWriteQueue });

    expect(await relay.flush()).toBe(1);
    expect(seen).toEqual([fine[0]!.id]);
    const left = (await dataSource.query('SELECT id, attempts FROM outbox_events WHERE published_at IS NULL ORDER BY id')) as { id: string; attempts: number }[];
    expect(left).toEqual([
      { id: corrupt.id, attempts: 1 },
      { id: stuck[1]!.id, attempts: 0 }, // waits behind it: the user's order is kept
    ]);
    // Said once (at error), although two passes met the row.
    expect(lines.filter((l) => l.includes(corrupt.id) && l.includes('"level":50'))).toHaveLength(1);
    expect(lines.filter((l) => l.includes('secret.person'))).toEqual([]);
  });
});

describe('createInProcessEventBus', () => {
  it('hands each event to every subscriber in turn, awaiting each; the first failure rejects publish', async () => {
    const bus = createInProcessEventBus();
    const calls: string[] = [];
    const slow = (name: string) => async (event: CloudEvent) => {
      await new Promise((r) => setTimeout(r, 5));
      calls.push(`${name}:${event.id}`);
    };
    bus.subscribe(slow('a'));
    const unsubscribeB = bus.subscribe(slow('b'));
    const events = ['1', '2'].map((id) => ({ id }) as CloudEvent);

    await bus.publish(events);
    expect(calls).toEqual(['a:1', 'b:1', 'a:2', 'b:2']);

    unsubscribeB();
    calls.length = 0;
    const failing = bus.subscribe(async (event) => {
      if (event.id === '1') throw new Error('boom');
    });
    await expect(bus.publish(events)).rejects.toThrow('boom');
    expect(calls).toEqual(['a:1']); // event 2 was not handed on after event 1 failed

    failing();
    await bus.close();
    await expect(bus.publish(events)).rejects.toBeInstanceOf(EventBusClosedError);
  });
});
