import { sealerStatements } from '../../../src/infrastructure/persistence/typeorm/audit/audit-sealer';
import { auditChainRig } from './audit-chain-rig';
import { mariadbTarget, mysql8Target } from './database-targets';

/** More entries waiting than MariaDB 10.11 still reads by the `seq` index unasked (about 10 000: review of 2026-12-07). */
const BACKLOG = 11_000;

/**
 * The sealer's statements keep their plans whatever the backlog. Left to choose, MariaDB read a backlog of more than
 * about 10 000 entries by walking the time index from the trail's oldest entry: at 1.5 M entries each batch of 500 took
 * 3.9 s, the backlog outgrew the sealer, and the audit topic fell behind for good. The plans are read with EXPLAIN on
 * the very statements the sealer runs, on a backlog past that point.
 */
describe.each([mariadbTarget, mysql8Target])('the audit sealer’s statements on $name', (target) => {
  const { db, sealer, query, write } = auditChainRig(target);
  const keyOf = async (sql: string, parameters: unknown[] = []) => {
    const [plan] = await query<{ key: string | null }[]>(`EXPLAIN ${sql}`, parameters);
    return plan!.key;
  };

  it(`finds ${BACKLOG} waiting entries by the seq index, writes them by primary key, and links them all`, async () => {
    const entries = await write(BACKLOG);
    await query(`ANALYZE TABLE audit_events`);
    const statements = sealerStatements(db.dataSource, 500);
    const two = [entries[0]!.id, entries[1]!.id];

    expect(await keyOf(statements.batch)).toBe('uq_audit_events_seq');
    expect(await keyOf(statements.markLate, [Date.now()])).toBe('uq_audit_events_seq');
    expect(await keyOf(statements.link(2, 'CASE id WHEN ? THEN 1 WHEN ? THEN 2 END', "CASE id WHEN ? THEN 'a' WHEN ? THEN 'b' END"), [...two, ...two, ...two])).toBe('PRIMARY');
    expect(await keyOf(statements.refuse(2), two)).toBe('PRIMARY');

    expect(await sealer().sealAll()).toBe(BACKLOG);
    const [{ n }] = await query<{ n: number | string }[]>('SELECT COUNT(*) AS n FROM audit_events WHERE seq IS NULL');
    expect(Number(n)).toBe(0);
  });
});
