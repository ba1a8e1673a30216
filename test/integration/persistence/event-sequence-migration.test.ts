import { v7 } from 'uuid';
import type { DataSource } from 'typeorm';
import type { DomainEvent } from '../../../src/domain/shared/domain-event';
import { claimSql } from '../../../src/infrastructure/messaging/outbox-claims';
import { EventSequence1764800000000 } from '../../../src/infrastructure/persistence/migrations/1764800000000-event-sequence';
import { runMigrations } from '../../../src/infrastructure/persistence/typeorm/migrate';
import { insertOutboxRows, invitedRow } from '../../support/outbox-fixtures';
import { TypeOrmAdapters } from '../../support/typeorm-adapters';
import { ALL_TARGETS } from './database-targets';

const AT = new Date('2026-03-01T10:00:00.000Z');

function event(aggregateId: string): DomainEvent {
  return { id: v7(), type: 'UserUpdated', aggregateId, occurredAt: AT, data: { user_id: aggregateId, changes: { name: 'N' } } };
}

/**
 * The migration that numbers events per aggregate (#22), on rows the previous version wrote: each
 * aggregate's rows numbered in id order (the order they were published in so far), each counter
 * starting after them, and rows a replica of the previous version still writes during the roll-out
 * (no number) published before the numbered ones of their user.
 */
describe.each(ALL_TARGETS)('the event sequence migration on $name', (target) => {
  let dataSource: DataSource;
  let dispose: () => Promise<void>;

  beforeAll(async () => {
    ({ dataSource, dispose } = await target.open());
    await runMigrations(dataSource);
  });

  afterAll(async () => dispose?.());

  async function sequences(): Promise<Map<string, number | null>> {
    const rows = (await dataSource.query('SELECT id, aggregate_sequence FROM outbox_events')) as { id: string; aggregate_sequence: number | string | null }[];
    return new Map(rows.map((r) => [r.id, r.aggregate_sequence === null ? null : Number(r.aggregate_sequence)]));
  }

  it('numbers the rows already there per aggregate in id order, and the next event of each aggregate follows them', async () => {
    const migration = new EventSequence1764800000000();
    const runner = dataSource.createQueryRunner();
    try {
      // Back to the schema of the previous version, with its rows: x's three (one published), y's two.
      await migration.down(runner);
      const [x, y] = [v7(), v7()];
      const rows = [invitedRow(x, AT), invitedRow(y, AT), invitedRow(x, AT), invitedRow(x, AT), invitedRow(y, AT)];
      rows[0] = { ...rows[0]!, publishedAt: AT, attempts: 1 };
      await insertOutboxRows(dataSource, rows);
      await migration.up(runner);

      const numbered = await sequences();
      expect(rows.map((r) => numbered.get(r.id))).toEqual([1, 1, 2, 3, 2]);
      const counters = (await dataSource.query('SELECT aggregate_id, last_sequence FROM event_sequences')) as { aggregate_id: string; last_sequence: number | string }[];
      expect(new Map(counters.map((c) => [c.aggregate_id, Number(c.last_sequence)]))).toEqual(
        new Map([
          [x, 3],
          [y, 2],
        ]),
      );

      const [nextX, nextZ] = [event(x), event(v7())];
      await new TypeOrmAdapters(dataSource).unitOfWork().run(({ outbox }) => outbox.append([nextX, nextZ]));
      const after = await sequences();
      expect([after.get(nextX.id), after.get(nextZ.id)]).toEqual([4, 1]);
    } finally {
      await runner.release();
    }
  });

  it('claims a row written without a number (a replica of the previous version) before its user\'s numbered ones', async () => {
    await dataSource.query('DELETE FROM outbox_events');
    const user = v7();
    const numberedFirst = event(user);
    const numberedSecond = event(user);
    await new TypeOrmAdapters(dataSource).unitOfWork().run(({ outbox }) => outbox.append([numberedFirst, numberedSecond]));
    const legacy = invitedRow(user, AT); // its id is the newest, and it has no number
    await insertOutboxRows(dataSource, [legacy]);

    const claim = async () => ((await dataSource.query(claimSql(10, false))) as { id: string }[]).map((r) => r.id);
    const published: string[] = [];
    for (let pass = 0; pass < 3; pass++) {
      const claimed = await claim();
      expect(claimed).toHaveLength(1);
      published.push(claimed[0]!);
      await dataSource.query('UPDATE outbox_events SET published_at = ? WHERE id = ?', ['2026-03-01 10:00:01.000', claimed[0]]);
    }
    expect(published).toEqual([legacy.id, numberedFirst.id, numberedSecond.id]);
    expect(await claim()).toEqual([]);
  });
});
