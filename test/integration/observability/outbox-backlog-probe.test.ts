import { outboxBacklogProbe } from '../../../src/infrastructure/observability/outbox-backlog-probe';
import { eventAbout, newId } from '../../contract/contract-kit';
import { ALL_TARGETS, migratedDatabase } from '../persistence/database-targets';

/**
 * The outbox gauges' probe on every database: how many events wait, counted up to a bound (a backlog of millions
 * answered within the probe's limit: review of 2026-12-07), and when the oldest of them was committed.
 */
describe.each(ALL_TARGETS)('the outbox backlog probe on $name', (target) => {
  const db = migratedDatabase(target);

  it('counts the unpublished events up to its bound, and dates the oldest of them past it', async () => {
    const { sqliteWriteQueue } = db.adapters.services;
    expect(await outboxBacklogProbe(db.dataSource, sqliteWriteQueue, 5)()).toEqual({ backlog: 0, oldest: null });
    const events = Array.from({ length: 8 }, (_, i) => ({ ...eventAbout(newId()), occurredAt: new Date(Date.UTC(2026, 11, 7, 12, 0, i)) }));
    for (const event of events) await db.adapters.unitOfWork().run(({ outbox }) => outbox.append([event]));
    await db.dataSource.query('UPDATE outbox_events SET published_at = ? WHERE id = ?', ['2026-12-07 12:00:09.000', events[0]!.id]);

    const oldest = new Date(Date.UTC(2026, 11, 7, 12, 0, 1));
    expect(await outboxBacklogProbe(db.dataSource, sqliteWriteQueue, 5)()).toEqual({ backlog: 5, oldest });
    expect(await outboxBacklogProbe(db.dataSource, sqliteWriteQueue, 7)()).toEqual({ backlog: 7, oldest });
    expect(await outboxBacklogProbe(db.dataSource, sqliteWriteQueue)()).toEqual({ backlog: 7, oldest });
  });
});
