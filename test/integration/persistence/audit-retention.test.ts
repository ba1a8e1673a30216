import { AuditMaintenance } from '../../../src/infrastructure/audit/audit-maintenance';
import { AuditRetentionSweeper } from '../../../src/infrastructure/persistence/typeorm/audit/audit-retention-sweeper';
import { AdjustableClock } from '../../support/adjustable-clock';
import { contractTargets } from '../../contract/implementations';
import { capturingLogger } from '../messaging/kafka-test-kit';
import { auditChainRig } from './audit-chain-rig';

const DAY = 86_400_000;
const HOUR = 3_600_000;

/**
 * The retention sweep kept up with (soak review of 2026-12-07): a sweep removes at most its cap, so writes faster than
 * one cap an interval (100 000 entries an hour by default) left the trail growing past AUDIT_RETENTION for good; and
 * an entry dated ahead of the clock held every sweep without a word.
 */
describe.each(contractTargets())('the audit retention sweep on $name', (target) => {
  const { db, queue, sealer, query, write } = auditChainRig(target);
  const count = async () => Number((await query<{ n: number | string }[]>('SELECT COUNT(*) AS n FROM audit_events'))[0]!.n);

  const maintained = (clock: AdjustableClock, sweeper: { batchSize: number; maxBatchesPerSweep: number }) => {
    const { logger, lines } = capturingLogger('info');
    const auditRetentionSweeper = new AuditRetentionSweeper({ dataSource: db.dataSource, sqliteWriteQueue: queue(), clock, retentionSeconds: 365 * 86_400, ...sweeper });
    const maintenance = new AuditMaintenance({ auditSealer: sealer(), auditRetentionSweeper, clock, logger, sweepEveryMs: HOUR, sweepCatchUpMs: 10_000 });
    return { maintenance, lines };
  };

  it('stops after the batch under way, not after the backlog, and seals the rest when started again (review of 2026-12-07)', async () => {
    const clock = new AdjustableClock();
    const { logger } = capturingLogger('info');
    const auditRetentionSweeper = new AuditRetentionSweeper({ dataSource: db.dataSource, sqliteWriteQueue: queue(), clock, retentionSeconds: 365 * 86_400 });
    const maintenance = new AuditMaintenance({ auditSealer: sealer(undefined, 2), auditRetentionSweeper, clock, logger });
    await write(10);
    const unsealed = async () => Number((await query<{ n: number | string }[]>('SELECT COUNT(*) AS n FROM audit_events WHERE seq IS NULL'))[0]!.n);

    maintenance.start();
    await maintenance.stop();
    expect(await unsealed()).toBe(8);
    maintenance.start();
    await maintenance.stop();
    expect(await unsealed()).toBe(6);
    await maintenance.pass();
    expect(await unsealed()).toBe(0);
  });

  it('sweeps again soon after a sweep that stopped at its cap, and an interval after one that did not', async () => {
    const clock = new AdjustableClock();
    clock.freeze();
    await write(9, clock.now().getTime() - 400 * DAY);
    await sealer().sealAll();
    const { maintenance } = maintained(clock, { batchSize: 2, maxBatchesPerSweep: 2 });

    await maintenance.pass(); // its cap: two batches of two
    expect(await count()).toBe(5);
    clock.advance(9_999);
    await maintenance.pass();
    expect(await count()).toBe(5);
    clock.advance(1);
    await maintenance.pass();
    expect(await count()).toBe(1);
    clock.advance(10_000);
    await maintenance.pass(); // the last one, under the cap: the next sweep is an hour away
    expect(await count()).toBe(0);
    await write(1, clock.now().getTime() - 400 * DAY);
    clock.advance(10_000);
    await maintenance.pass();
    expect(await count()).toBe(1);
    clock.advance(HOUR);
    await maintenance.pass();
    expect(await count()).toBe(0);
  });

  it('says which entry dated ahead of the clock holds the sweep, and removes nothing past it', async () => {
    const clock = new AdjustableClock();
    clock.freeze();
    // A replica whose clock ran a month ahead wrote one; the entries after it in the chain are past the retention.
    await write(1, clock.now().getTime() + 30 * DAY);
    await sealer().sealAll();
    await write(3, clock.now().getTime() - 400 * DAY);
    await sealer().sealAll();
    const { maintenance, lines } = maintained(clock, { batchSize: 1000, maxBatchesPerSweep: 100 });

    await maintenance.pass();
    expect(await count()).toBe(4);
    const warning = lines.find((line) => line.includes('holds the retention sweep'));
    expect(warning).toContain('"seq":1');
    expect(warning).toContain(new Date(clock.now().getTime() + 30 * DAY).toISOString().slice(0, 10));
  });
});
