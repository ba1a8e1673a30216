import { AUDIT_EVENT_TYPE } from '../../../src/infrastructure/messaging/cloud-event';
import { AUDIT_GENESIS_HASH } from '../../../src/infrastructure/persistence/migrations/1765300000000-audit-trail';
import { entrySealsSeal, headSeal } from '../../../src/infrastructure/persistence/typeorm/audit/audit-chain';
import { type AuditRow, chainLink, SELECT_SEALED } from '../../../src/infrastructure/persistence/typeorm/audit/audit-rows';
import { AuditRetentionSweeper } from '../../../src/infrastructure/persistence/typeorm/audit/audit-retention-sweeper';
import { AuditHeadMovedError, AuditSealer } from '../../../src/infrastructure/persistence/typeorm/audit/audit-sealer';
import { keepEntrySealKey } from '../../../src/infrastructure/persistence/typeorm/audit/entry-seal-keys';
import { TypeOrmAuditLog } from '../../../src/infrastructure/persistence/typeorm/audit/typeorm-audit-log';
import { contractTargets } from '../../contract/implementations';
import { auditChainRig } from './audit-chain-rig';

const KEY = 'audit-seal-key-of-the-head-seal-tests';
const DAY = 86_400_000;

/**
 * The seal of the chain's head (review S, high): with AUDIT_SEAL_KEY, deleting an entry, clearing the links after it
 * and moving the head back onto the entry before it (its link copied, no key needed) no longer has the next sealer link
 * the rest again as if nothing was missing.
 */
describe.each(contractTargets())('the audit chain’s head seal on $name', (target) => {
  const { db, clock, sealer, verifier, query, write, seqOf, queue } = auditChainRig(target);
  beforeEach(() => keepEntrySealKey(db.dataSource, KEY));

  const linkOf = async (seq: number) => (await query<{ chain_hash: string }[]>('SELECT chain_hash FROM audit_events WHERE seq = ?', [seq]))[0]!.chain_hash;
  const headSealOf = async () => (await query<{ head_seal: string | null }[]>('SELECT head_seal FROM audit_chain WHERE id = 1'))[0]!.head_seal;
  /** Entry #`victim` deleted, the links after it cleared (their published events swept), and the head moved onto #victim-1 (its link copied), seal as `seal`. */
  const cutBehindTheService = async (victim: number, seal: 'left' | 'cleared') => {
    const link = await linkOf(victim - 1);
    await query('DELETE FROM audit_events WHERE seq = ?', [victim]);
    await query('UPDATE audit_events SET seq = NULL, chain_hash = NULL WHERE seq > ?', [victim]);
    // Their events for the audit topic, once published and past the outbox's retention, are gone from the database.
    await query('DELETE FROM outbox_events WHERE type = ? AND aggregate_id NOT IN (SELECT id FROM audit_events WHERE seq IS NOT NULL)', [AUDIT_EVENT_TYPE]);
    await query(`UPDATE audit_chain SET last_seq = ?, last_hash = ?${seal === 'cleared' ? ', head_seal = NULL' : ''} WHERE id = 1`, [victim - 1, link]);
  };
  /** Every linked entry linked again as the sealer of the version before did (no head seal, no marker), the head on the last. */
  const linkedByTheVersionBefore = async () => {
    const rows = await query<AuditRow[]>(`${SELECT_SEALED} WHERE seq IS NOT NULL ORDER BY seq`);
    let previous = AUDIT_GENESIS_HASH;
    for (const row of rows) {
      previous = chainLink(previous, Number(row.seq), row, KEY);
      await query('UPDATE audit_events SET chain_hash = ? WHERE id = ?', [previous, row.id]);
    }
    await query('UPDATE audit_chain SET last_hash = ?, head_seal = NULL WHERE id = 1', [previous]);
  };

  it.each(['left', 'cleared'] as const)('refuses to link on from a head moved back by hand (its seal %s), and audit:verify names it', async (seal) => {
    const entries = await write(5);
    expect(await sealer(KEY).sealAll()).toBe(5);
    expect(await headSealOf()).toBe(headSeal(5, await linkOf(5), KEY));
    await cutBehindTheService(3, seal);

    expect((await verifier(KEY).verify()).firstBreak).toMatchObject({ seq: 2, reason: 'head_moved' });
    // A sealer that never saw the head further (a restarted replica) refuses too, at every pass, and links nothing.
    await expect(sealer(KEY).sealAll()).rejects.toBeInstanceOf(AuditHeadMovedError);
    await write(1, clock.now().getTime() + 10);
    await expect(sealer(KEY).sealAll()).rejects.toBeInstanceOf(AuditHeadMovedError);
    const [{ n }] = await query<{ n: number | string }[]>('SELECT COUNT(*) AS n FROM audit_events WHERE seq IS NULL');
    expect(Number(n)).toBe(3);
    expect(await seqOf(entries[1]!.id)).toBe(2);
  });

  it('refuses a head put on no entry’s link', async () => {
    await write(3);
    await sealer(KEY).sealAll();
    await query('UPDATE audit_chain SET last_hash = ?, head_seal = NULL WHERE id = 1', ['e'.repeat(64)]);
    await expect(sealer(KEY).sealAll()).rejects.toThrow(/not the link of a verifying entry/);
  });

  it('links on from the head a sealer of the version before left (an upgrade, a rolling one), and seals it', async () => {
    await write(3);
    await sealer(KEY).sealAll();
    await linkedByTheVersionBefore();
    expect(await verifier(KEY).verify()).toEqual({ ok: true, checked: 3, unsealed: 0 });

    const [next] = await write(2, clock.now().getTime() + 10);
    expect(await sealer(KEY).sealAll()).toBe(2);
    expect(await seqOf(next!.id)).toBe(4);
    expect(await headSealOf()).toBe(headSeal(5, await linkOf(5), KEY));
    // An old replica still running links one more its way, moving the head without sealing it: still the trail's.
    const [row] = await query<AuditRow[]>(`${SELECT_SEALED} WHERE id = ?`, [(await write(1, clock.now().getTime() + 20))[0]!.id]);
    const oldLink = chainLink(await linkOf(5), 6, row!, KEY);
    await query('UPDATE audit_events SET seq = 6, chain_hash = ? WHERE id = ?', [oldLink, row!.id]);
    await query('UPDATE audit_chain SET last_seq = 6, last_hash = ? WHERE id = 1', [oldLink]);
    expect(await verifier(KEY).verify()).toEqual({ ok: true, checked: 6, unsealed: 0 });
    await write(1, clock.now().getTime() + 30);
    expect(await sealer(KEY).sealAll()).toBe(1);
    expect(await verifier(KEY).verify()).toEqual({ ok: true, checked: 7, unsealed: 0 });
  });

  it('links no entry that waited past the grace behind a head without its seal: cleared behind a head moved onto a legacy entry', async () => {
    const now = clock.now().getTime();
    await sealer(KEY).sealAll(); // a trail whose head was sealed before the entries were written: all of them link
    const entries = [...(await write(4, now - 3_600_000)), ...(await write(1, now - 1_000))];
    await sealer(KEY).sealAll();
    await linkedByTheVersionBefore();
    await cutBehindTheService(3, 'cleared');

    // #4 (an hour old) may have been linked before: it is not linked, nor listed; #5 (a second old) is linked as #3.
    expect(await sealer(KEY).sealAll()).toBe(1);
    expect(await seqOf(entries[4]!.id)).toBe(3);
    const listed = (await new TypeOrmAuditLog({ dataSource: db.dataSource, sqliteWriteQueue: queue() }).page({}, 50)).entries.map((e) => e.id);
    expect(listed).not.toContain(entries[3]!.id);
    expect((await verifier(KEY).verify()).firstBreak).toMatchObject({ id: entries[3]!.id, reason: 'late' });
    // Marked once: later passes, on the head now sealed, leave it as it is.
    expect(await sealer(KEY).sealAll()).toBe(0);
    expect(await seqOf(entries[3]!.id)).toBe(0);
  });

  it('sweeps past the retention the entries an older sealer linked, with or without their seal in the link', async () => {
    await sealer(KEY).sealAll();
    await write(3, clock.now().getTime() - 400 * DAY);
    await sealer(KEY).sealAll();
    // #2 as the version before entries' seals linked it (review K), #3 as the version before head seals did.
    const [second] = await query<AuditRow[]>(`${SELECT_SEALED} WHERE seq = 2`);
    const secondLink = chainLink(await linkOf(1), 2, { ...second!, entry_seal: null }, KEY);
    const [third] = await query<AuditRow[]>(`${SELECT_SEALED} WHERE seq = 3`);
    const thirdLink = chainLink(secondLink, 3, third!, KEY);
    await query('UPDATE audit_events SET chain_hash = ? WHERE seq = 2', [secondLink]);
    await query('UPDATE audit_events SET chain_hash = ? WHERE seq = 3', [thirdLink]);
    await query('UPDATE audit_chain SET last_hash = ?, head_seal = NULL WHERE id = 1', [thirdLink]);
    const sweeper = new AuditRetentionSweeper({ dataSource: db.dataSource, sqliteWriteQueue: queue(), clock, sealKey: KEY, retentionSeconds: 365 * 86_400 });

    expect((await sweeper.sweep()).removed).toBe(3);
    expect(await verifier(KEY).verify()).toEqual({ ok: true, checked: 0, unsealed: 0 });
  });

  it('keeps old replicas’ entries without a seal genuine while their sealer still links, however long the rollout', async () => {
    const refused: string[] = [];
    const running = new AuditSealer({ dataSource: db.dataSource, sqliteWriteQueue: queue(), sealKey: KEY, onRefused: (ids) => refused.push(...ids) });
    await write(1);
    expect(await running.sealAll()).toBe(1);
    // The window for entries without a seal closed ten minutes after the upgrade's first keyed pass.
    const closed = Date.now() - 1_000;
    await query('UPDATE audit_chain SET entry_seals_from = ?, entry_seals_seal = ? WHERE id = 1', [closed, entrySealsSeal(closed, KEY)]);
    // A replica of a version before entries' seals writes one: refused, as one inserted behind the service would be.
    keepEntrySealKey(db.dataSource, undefined);
    const [early] = await write(1, clock.now().getTime() + 10);
    expect(await running.sealAll()).toBe(0);
    expect(refused).toEqual([early!.id]);
    // Its sealer, which knows no refusal, links it anyway (a link only the key makes), and moves the head without its seal.
    const [row] = await query<AuditRow[]>(`${SELECT_SEALED} WHERE id = ?`, [early!.id]);
    const oldLink = chainLink(await linkOf(1), 2, row!, KEY);
    await query('UPDATE audit_events SET seq = 2, chain_hash = ? WHERE id = ?', [oldLink, early!.id]);
    await query('UPDATE audit_chain SET last_seq = 2, last_hash = ? WHERE id = 1', [oldLink]);
    // So the old replica is alive: its next entry is linked, and the window stays open ahead.
    const [later] = await write(1, clock.now().getTime() + 20);
    expect(await running.sealAll()).toBe(1);
    expect([await seqOf(later!.id), refused.length]).toEqual([3, 1]);
    expect(await verifier(KEY).verify()).toEqual({ ok: true, checked: 3, unsealed: 0 });
  });

  it.each([
    ['a minute', 60_000, 1],
    ['an hour', 3_600_000, 0],
  ])(
    'on a new replica’s first pass after a rollback, keeps genuine the old replicas’ last entries without a seal when their sealer last linked %s before',
    async (_ago, ago, linked) => {
      await write(1);
      expect(await sealer(KEY).sealAll()).toBe(1);
      // Rolled back past the window: the version before's replicas write and link entries without a seal, the last
      // `ago` before the upgrade again; then every one of them stops, one entry they wrote left unlinked.
      const closed = Date.now() - 1_000;
      await query('UPDATE audit_chain SET entry_seals_from = ?, entry_seals_seal = ? WHERE id = 1', [closed, entrySealsSeal(closed, KEY)]);
      keepEntrySealKey(db.dataSource, undefined);
      const [linkedByOld] = await write(1, Date.now() - ago);
      const [row] = await query<AuditRow[]>(`${SELECT_SEALED} WHERE id = ?`, [linkedByOld!.id]);
      const oldLink = chainLink(await linkOf(1), 2, row!, KEY);
      await query('UPDATE audit_events SET seq = 2, chain_hash = ? WHERE id = ?', [oldLink, linkedByOld!.id]);
      await query('UPDATE audit_chain SET last_seq = 2, last_hash = ? WHERE id = 1', [oldLink]);
      const [leftOver] = await write(1, Date.now() - 500);
      keepEntrySealKey(db.dataSource, KEY);

      // A replica of this version starts (a process that has seen no pass): the entry is the old replicas' own, unless
      // their sealer last ran longer ago than the window (then nothing says they wrote it).
      const refused: string[] = [];
      const started = new AuditSealer({ dataSource: db.dataSource, sqliteWriteQueue: queue(), sealKey: KEY, onRefused: (ids) => refused.push(...ids) });
      expect(await started.sealAll()).toBe(linked);
      expect(refused).toEqual(linked ? [] : [leftOver!.id]);
      expect(await verifier(KEY).verify()).toMatchObject(linked ? { ok: true, checked: 3 } : { firstBreak: { id: leftOver!.id } });
    },
  );

  it('links on from a trail kept without the key when AUDIT_SEAL_KEY is set later, rather than stop', async () => {
    keepEntrySealKey(db.dataSource, undefined);
    await write(2);
    expect(await sealer().sealAll()).toBe(2);
    keepEntrySealKey(db.dataSource, KEY);
    const [next] = await write(1, clock.now().getTime() + 10);
    expect(await sealer(KEY).sealAll()).toBe(1);
    expect(await seqOf(next!.id)).toBe(3);
    expect(await headSealOf()).toBe(headSeal(3, await linkOf(3), KEY));
  });
});

