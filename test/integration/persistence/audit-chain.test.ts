import { toAuditEventView } from '../../../src/application/audit/audit-event.view';
import { AUDIT_EVENT_TYPE } from '../../../src/infrastructure/messaging/cloud-event';
import { AuditRetentionSweeper, AuditTrailBrokenError } from '../../../src/infrastructure/persistence/typeorm/audit/audit-retention-sweeper';
import { AuditChainCutError, AuditSealer } from '../../../src/infrastructure/persistence/typeorm/audit/audit-sealer';
import { type AuditRow, chainLink, SELECT_SEALED } from '../../../src/infrastructure/persistence/typeorm/audit/audit-rows';
import { AuditVerifier } from '../../../src/infrastructure/persistence/typeorm/audit/audit-verifier';
import { entrySealsSeal } from '../../../src/infrastructure/persistence/typeorm/audit/audit-chain';
import { keepEntrySealKey } from '../../../src/infrastructure/persistence/typeorm/audit/entry-seal-keys';
import { TypeOrmAuditLog } from '../../../src/infrastructure/persistence/typeorm/audit/typeorm-audit-log';
import { contractTargets } from '../../contract/implementations';
import { auditChainRig } from './audit-chain-rig';

const DAY = 86_400_000;

/**
 * The tamper evidence of the audit trail (#23) on every database: the sealer links what committed into
 * a hash chain, and the verifier names the first entry that an edit, a deletion or an insertion broke.
 */
describe.each(contractTargets())('the audit hash chain on $name', (target) => {
  const { db, clock, queue, sealer, verifier, query, write, seqOf, queued } = auditChainRig(target);

  it('links committed entries in order and verifies them', async () => {
    const entries = await write(5);
    expect(await sealer(undefined, 2).sealAll()).toBe(5);

    expect(await verifier().verify()).toEqual({ ok: true, checked: 5, unsealed: 0 });
    expect(await Promise.all(entries.map((e) => seqOf(e.id)))).toEqual([1, 2, 3, 4, 5]);
  });

  it('puts each entry’s event in the outbox in the pass that seals it, once, as the API answers the entry', async () => {
    const entries = await write(5);
    expect((await queued()).size).toBe(0);
    let nudged = 0;
    const nudging = new AuditSealer({ dataSource: db.dataSource, sqliteWriteQueue: queue(), batchSize: 2, onEventsCommitted: () => nudged++ });

    expect(await nudging.sealAll()).toBe(5);
    const events = await queued();
    expect([...events.keys()].sort()).toEqual(entries.map((e) => e.id).sort());
    // Each with its place in the chain: the topic is a copy of the chain outside the database.
    const links = await query<{ id: string; seq: number | string; chain_hash: string }[]>('SELECT id, seq, chain_hash FROM audit_events');
    const placeOf = new Map(links.map((l) => [l.id, { seq: Number(l.seq), link: l.chain_hash }]));
    expect(entries.map((e) => events.get(e.id))).toEqual(entries.map((e, i) => ({ ...toAuditEventView(e), chain: { seq: i + 1, link: placeOf.get(e.id)!.link } })));
    // Three passes (2 + 2 + 1), each nudging the relay once; a pass with nothing to seal neither writes nor nudges.
    expect(nudged).toBe(3);
    expect(await nudging.sealAll()).toBe(0);
    expect([(await queued()).size, nudged]).toEqual([5, 3]);
  });

  it('is no break when a sealer links entries while it walks (review S: a live service’s verify said head_moved)', async () => {
    await write(5);
    await sealer().sealAll();
    let linkedMeanwhile = false;
    let turns = 0;
    // The verifier's head is read (its first turn); then, before its walk, five more entries are written and linked,
    // as on a live service.
    const racing = {
      serialize: async <T>(work: () => Promise<T>): Promise<T> => {
        turns += 1;
        if (turns === 2) {
          await write(5, clock.now().getTime() + 10);
          expect(await sealer().sealAll()).toBe(5);
          linkedMeanwhile = true;
        }
        return queue().serialize(work);
      },
    } as ReturnType<typeof queue>;
    const verification = await new AuditVerifier({ dataSource: db.dataSource, sqliteWriteQueue: racing, now: () => clock.now().getTime() }).verify();
    expect(linkedMeanwhile).toBe(true);
    expect(verification).toEqual({ ok: true, checked: 10, unsealed: 0 });
  });

  it('names an entry edited in the database', async () => {
    const entries = await write(4);
    await sealer().sealAll();
    await query('UPDATE audit_events SET changes = ? WHERE id = ?', ['[{"field":"role","before":"member","after":"member"}]', entries[2]!.id]);

    expect((await verifier().verify()).firstBreak).toMatchObject({ id: entries[2]!.id, seq: 3, reason: 'edited' });
  });

  it('names the place of an entry deleted from the middle, and a tail cut off', async () => {
    const entries = await write(4);
    await sealer().sealAll();
    await query('DELETE FROM audit_events WHERE id = ?', [entries[1]!.id]);
    expect((await verifier().verify()).firstBreak).toMatchObject({ seq: 2, id: entries[2]!.id, reason: 'missing' });

    await query('DELETE FROM audit_events');
    expect((await verifier().verify()).firstBreak).toMatchObject({ seq: 1, reason: 'missing' });
  });

  it('names an entry inserted behind the sealer’s back, sealed-looking or not', async () => {
    await write(3);
    await sealer().sealAll();
    const [forged] = await write(1);
    await query('UPDATE audit_events SET seq = 4, chain_hash = ? WHERE id = ?', ['f'.repeat(64), forged!.id]);
    expect((await verifier().verify()).firstBreak).toMatchObject({ id: forged!.id, reason: 'edited' });

    await query('DELETE FROM audit_events WHERE id = ?', [forged!.id]);
    const [stale] = await write(1, clock.now().getTime() - DAY);
    expect((await verifier().verify()).firstBreak).toMatchObject({ id: stale!.id, reason: 'unsealed' });
  });

  it('with AUDIT_SEAL_KEY, a chain rebuilt without the key does not verify', async () => {
    keepEntrySealKey(db.dataSource, 'the-real-key');
    await write(2);
    await sealer('the-real-key').sealAll();
    expect((await verifier('the-real-key').verify()).ok).toBe(true);
    expect((await verifier('a-guessed-key').verify()).firstBreak).toMatchObject({ seq: 1, reason: 'edited' });
  });

  describe('with AUDIT_SEAL_KEY, each entry sealed as it is written', () => {
    const KEY = 'audit-seal-key-of-the-entry-seal-tests';
    const refusedBy = (now: number) => {
      const refused: string[] = [];
      const keyed = new AuditSealer({ dataSource: db.dataSource, sqliteWriteQueue: queue(), sealKey: KEY, now: () => now, onRefused: (ids) => refused.push(...ids) });
      return { keyed, refused };
    };
    const listed = async () => (await new TypeOrmAuditLog({ dataSource: db.dataSource, sqliteWriteQueue: queue() }).page({}, 50)).entries.map((e) => e.id);

    it('links the service’s entries, odd text included, and refuses a row written with another key', async () => {
      keepEntrySealKey(db.dataSource, KEY);
      // A user agent as a client may send it: characters outside the BMP, and a lone surrogate the database keeps as U+FFFD.
      const before = await write(2, clock.now().getTime(), '\uFEFFMozilla/5.0 \u{1F600} \uD800 ünïcödé '.repeat(20));
      keepEntrySealKey(db.dataSource, 'a-key-that-is-not-the-service-one');
      const [forged] = await write(1, clock.now().getTime() + 10);
      keepEntrySealKey(db.dataSource, KEY);
      const after = await write(2, clock.now().getTime() + 20);
      const { keyed, refused } = refusedBy(Date.now());

      expect(await keyed.sealAll()).toBe(4);
      expect(refused).toEqual([forged!.id]);
      // The genuine entries are linked in order, without a gap; the forged one has no place, no event, no listing.
      expect(await Promise.all([...before, ...after].map((e) => seqOf(e.id)))).toEqual([1, 2, 3, 4]);
      expect((await queued()).has(forged!.id)).toBe(false);
      expect(await listed()).not.toContain(forged!.id);
      expect(await listed()).toHaveLength(4);
      expect((await verifier(KEY).verify()).firstBreak).toMatchObject({ id: forged!.id, reason: 'forged' });
      // Refused once: the next pass does not read it again.
      expect(await keyed.sealAll()).toBe(0);
      expect(refused).toHaveLength(1);
    });

    it('links rows without a seal only in the ten minutes after the first keyed pass (a rolling upgrade’s old replicas)', async () => {
      // A trail linked under the key before entries carried seals (the version before linked a row without one; its
      // window columns did not exist), then the upgrade.
      const far = Date.now() + DAY;
      await query('UPDATE audit_chain SET entry_seals_from = ?, entry_seals_seal = ? WHERE id = 1', [far, entrySealsSeal(far, KEY)]);
      await write(1);
      expect(await sealer(KEY).sealAll()).toBe(1);
      await query('UPDATE audit_chain SET entry_seals_from = NULL, entry_seals_seal = NULL WHERE id = 1');
      // A replica of the version before, still running, writes without a seal.
      const start = Date.now();
      const during = await write(1);
      expect(await refusedBy(start).keyed.sealAll()).toBe(1);
      expect(await seqOf(during[0]!.id)).toBe(2);

      const late = await write(1);
      const { keyed, refused } = refusedBy(start + 10 * 60_000 + 1);
      expect(await keyed.sealAll()).toBe(0);
      expect(refused).toEqual([late[0]!.id]);
      expect((await verifier(KEY).verify()).firstBreak).toMatchObject({ id: late[0]!.id, reason: 'forged' });
    });

    it('verifies an entry the sealer of the version before linked without its seal (a rolling upgrade), never one whose seal is not the key’s', async () => {
      keepEntrySealKey(db.dataSource, KEY);
      const entries = await write(2);
      expect(await sealer(KEY).sealAll()).toBe(2);
      // The old replica's sealer linked the new replica's second entry as it knew entries: without their seal.
      const [row] = await query<AuditRow[]>(`${SELECT_SEALED} WHERE id = ?`, [entries[1]!.id]);
      const [first] = await query<{ chain_hash: string }[]>('SELECT chain_hash FROM audit_events WHERE seq = 1');
      const olderLink = chainLink(first!.chain_hash, 2, { ...row!, entry_seal: null }, KEY);
      await query('UPDATE audit_events SET chain_hash = ? WHERE id = ?', [olderLink, row!.id]);
      await query('UPDATE audit_chain SET last_hash = ? WHERE id = 1', [olderLink]);
      expect(await verifier(KEY).verify()).toMatchObject({ ok: true, checked: 2 });

      await query('UPDATE audit_events SET entry_seal = ? WHERE id = ?', ['0'.repeat(64), row!.id]);
      expect((await verifier(KEY).verify()).firstBreak).toMatchObject({ seq: 2, reason: 'edited' });
    });

    it('requires seals at once on a trail that has linked nothing yet (a new installation has no old replicas)', async () => {
      const [unsealed] = await write(1);
      const { keyed, refused } = refusedBy(Date.now());
      expect(await keyed.sealAll()).toBe(0);
      expect(refused).toEqual([unsealed!.id]);
    });

    it('names, never lists nor links, a row given a link of its own but no place in the chain', async () => {
      keepEntrySealKey(db.dataSource, KEY);
      const [genuine] = await write(1);
      keepEntrySealKey(db.dataSource, undefined);
      const [faked] = await write(1);
      await query('UPDATE audit_events SET chain_hash = ? WHERE id = ?', ['x', faked!.id]);
      // Before any pass as after it: not listed, and named.
      expect(await listed()).toEqual([genuine!.id]);
      expect((await verifier(KEY).verify()).firstBreak).toMatchObject({ id: faked!.id, reason: 'forged' });
      const { keyed, refused } = refusedBy(Date.now());

      expect(await keyed.sealAll()).toBe(1);
      expect(refused).toEqual([faked!.id]);
      expect(await listed()).toEqual([genuine!.id]);
      expect((await verifier(KEY).verify()).firstBreak).toMatchObject({ id: faked!.id, reason: 'forged' });
    });

    it('keeps the window for rows without a seal shut when it is cleared or moved by hand, and says so', async () => {
      keepEntrySealKey(db.dataSource, KEY);
      await write(1);
      await refusedBy(Date.now()).keyed.sealAll(); // a trail keyed from its start: seals required at once
      // Cleared: the sealer does not open a new window, since linked entries carry seals.
      await query('UPDATE audit_chain SET entry_seals_from = NULL, entry_seals_seal = NULL WHERE id = 1');
      keepEntrySealKey(db.dataSource, undefined);
      const [cleared] = await write(1);
      let resets = 0;
      const watched = new AuditSealer({ dataSource: db.dataSource, sqliteWriteQueue: queue(), sealKey: KEY, onWindowReset: () => resets++ });
      expect([await watched.sealAll(), resets]).toEqual([0, 1]);
      expect((await verifier(KEY).verify()).firstBreak).toMatchObject({ id: cleared!.id, reason: 'forged' });
      // Moved ahead without the key: the verifier names the window, and the sealer shuts it again.
      await query('UPDATE audit_events SET chain_hash = NULL WHERE id = ?', [cleared!.id]);
      await query('UPDATE audit_chain SET entry_seals_from = ? WHERE id = 1', [Date.now() + 365 * DAY]);
      expect((await verifier(KEY).verify()).firstBreak?.reason).toBe('seal_window_moved');
      expect([await watched.sealAll(), resets]).toEqual([0, 2]);
      // And clearing a linked entry's own seal is an edit of it.
      await query('UPDATE audit_events SET entry_seal = NULL WHERE seq = 1');
      expect((await verifier(KEY).verify()).firstBreak).toMatchObject({ seq: 1, reason: 'edited' });
    });

    it('lists no row not linked yet whose seal is not the key’s, a page full all the same (review S: listed until the sealer refused it)', async () => {
      const log = new TypeOrmAuditLog({ dataSource: db.dataSource, sqliteWriteQueue: queue() });
      const at = clock.now().getTime();
      const genuine: string[] = [];
      for (let i = 0; i < 3; i += 1) {
        keepEntrySealKey(db.dataSource, KEY);
        genuine.push((await write(1, at + 10 * i))[0]!.id);
        // Between each two, rows inserted while the sealer is stalled: another key's seal, and none.
        keepEntrySealKey(db.dataSource, 'a-key-that-is-not-the-service-one');
        await write(1, at + 10 * i + 1);
        keepEntrySealKey(db.dataSource, undefined);
        await write(1, at + 10 * i + 2);
      }
      keepEntrySealKey(db.dataSource, KEY);
      const first = await log.page({}, 2);
      expect(first.entries.map((e) => e.id)).toEqual([genuine[2], genuine[1]]);
      expect((await log.page({}, 2, first.next)).entries.map((e) => e.id)).toEqual([genuine[0]]);
      const exported: string[] = [];
      for await (const entry of log.export({})) exported.push(entry.id);
      expect(exported).toEqual(genuine);
      // Once linked, listed as before: the same three.
      await refusedBy(Date.now()).keyed.sealAll();
      expect((await log.page({}, 50)).entries.map((e) => e.id)).toEqual([...genuine].reverse());
    });

    it('cannot be fooled by a row given the refused mark by hand: it is named as well', async () => {
      keepEntrySealKey(db.dataSource, KEY);
      const [entry] = await write(1);
      await query("UPDATE audit_events SET chain_hash = 'refused' WHERE id = ?", [entry!.id]);
      expect(await refusedBy(Date.now()).keyed.sealAll()).toBe(0);
      expect((await verifier(KEY).verify()).firstBreak).toMatchObject({ id: entry!.id, reason: 'forged' });
    });
  });

  it('seals each entry once when several sealers run at once (replicas)', async () => {
    await write(60);
    const counts = await Promise.all([sealer(undefined, 7), sealer(undefined, 5), sealer(undefined, 11)].map((s) => s.sealAll().catch(() => 0)));
    // A pass that lost a race rolled back; whatever is left is sealed by the next pass.
    await sealer().sealAll();

    expect(counts.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(60);
    expect(await verifier().verify()).toEqual({ ok: true, checked: 60, unsealed: 0 });
    // And each entry's event is in the outbox once: a pass that rolled back took its events with it.
    const [{ n }] = await query<{ n: number | string }[]>('SELECT COUNT(*) AS n FROM outbox_events WHERE type = ?', [AUDIT_EVENT_TYPE]);
    expect([Number(n), (await queued()).size]).toEqual([60, 60]);
  });

  it('sweeps entries past the retention in batches, leaving a checkpoint so what remains verifies', async () => {
    const old = await write(7, clock.now().getTime() - 400 * DAY);
    const recent = await write(3);
    await sealer().sealAll();
    const sweeper = new AuditRetentionSweeper({ dataSource: db.dataSource, sqliteWriteQueue: queue(), clock, retentionSeconds: 365 * 86_400, batchSize: 3 });

    expect((await sweeper.sweep()).removed).toBe(old.length);

    const left = await query<{ id: string }[]>('SELECT id FROM audit_events ORDER BY seq');
    expect(left.map((r) => r.id)).toEqual(recent.map((e) => e.id));
    expect(await verifier().verify()).toEqual({ ok: true, checked: 3, unsealed: 0 });
    await write(2);
    await sealer().sealAll();
    expect(await verifier().verify()).toEqual({ ok: true, checked: 5, unsealed: 0 });
  });

  it('sweeps nothing that does not verify: entries backdated into the retention stay, named', async () => {
    const KEY = 'audit-seal-key-for-the-backdating-test';
    keepEntrySealKey(db.dataSource, KEY);
    await sealer(KEY).sealAll(); // a trail keyed since it started: its head sealed, so entries written a year ago link
    const old = await write(2, clock.now().getTime() - 400 * DAY);
    const recent = await write(4);
    await sealer(KEY).sealAll();
    const sweeper = new AuditRetentionSweeper({ dataSource: db.dataSource, sqliteWriteQueue: queue(), clock, sealKey: KEY, retentionSeconds: 365 * 86_400 });
    // Someone who can write the tables, not the key, backdates the first three recent entries to have them swept.
    await query('UPDATE audit_events SET occurred_at = occurred_at - ? WHERE seq IN (3, 4, 5)', [400 * DAY]);

    // The two genuinely old entries go; the sweep stops at the first that fails its link, and says so the next time.
    expect((await sweeper.sweep()).removed).toBe(old.length);
    await expect(sweeper.sweep()).rejects.toBeInstanceOf(AuditTrailBrokenError);
    const left = await query<{ id: string }[]>('SELECT id FROM audit_events ORDER BY seq');
    expect(left.map((r) => r.id)).toEqual(recent.map((e) => e.id));
    expect((await verifier(KEY).verify()).firstBreak).toMatchObject({ seq: 3, id: recent[0]!.id, reason: 'edited' });

    // A checkpoint moved by hand is not swept from (which would seal it anew).
    await query('UPDATE audit_events SET occurred_at = occurred_at + ? WHERE seq IN (3, 4, 5)', [400 * DAY]);
    await query('UPDATE audit_chain SET floor_seal = ? WHERE id = 1', ['0'.repeat(64)]);
    await expect(sweeper.sweep()).rejects.toThrow(/checkpoint/);
  });

  it('stops sealing, on a replica that saw the head further, once the chain’s end is cut and its head moved back', async () => {
    const running = sealer();
    await write(5);
    expect(await running.sealAll()).toBe(5);
    // The last two entries deleted and the head moved onto #3, copying its link: no key needed.
    const [third] = await query<{ chain_hash: string }[]>('SELECT chain_hash FROM audit_events WHERE seq = 3');
    await query('DELETE FROM audit_events WHERE seq > 3');
    await query('UPDATE audit_chain SET last_seq = 3, last_hash = ? WHERE id = 1', [third!.chain_hash]);
    // The verifier alone cannot tell (the head is an entry's); the replica that saw #5 can.
    expect(await verifier().verify()).toEqual({ ok: true, checked: 3, unsealed: 0 });
    const after = await write(1);
    await expect(running.sealAll()).rejects.toBeInstanceOf(AuditChainCutError);
    await expect(running.sealAll()).rejects.toBeInstanceOf(AuditChainCutError);
    // So the entries written since stay unsealed, and verification names them once past the sealer's grace.
    const later = new AuditVerifier({ dataSource: db.dataSource, sqliteWriteQueue: queue(), now: () => clock.now().getTime() + 11 * 60_000 });
    expect((await later.verify()).firstBreak).toMatchObject({ reason: 'unsealed', id: after[0]!.id });
    // Another sealer (a fresh process) sees nothing to compare with: moving forward is the others' work.
    expect(await sealer().sealAll()).toBe(1);
  });

  it('catches a checkpoint moved by hand (the entries before it deleted, an existing link copied in), key or not', async () => {
    const KEY = 'audit-seal-key-for-the-checkpoint-test';
    keepEntrySealKey(db.dataSource, KEY);
    await sealer(KEY).sealAll(); // a trail keyed since it started: its head sealed, so entries written a year ago link
    await write(4, clock.now().getTime() - 400 * DAY);
    await write(6);
    await sealer(KEY).sealAll();
    const sweeper = new AuditRetentionSweeper({ dataSource: db.dataSource, sqliteWriteQueue: queue(), clock, sealKey: KEY, retentionSeconds: 365 * 86_400 });
    expect((await sweeper.sweep()).removed).toBe(4);
    // The sweeper's own checkpoint verifies.
    expect(await verifier(KEY).verify()).toEqual({ ok: true, checked: 6, unsealed: 0 });
    // Two more recent entries deleted, and the checkpoint moved onto the last of them: no key needed to copy a link.
    const [victim] = await query<{ seq: number | string; chain_hash: string }[]>('SELECT seq, chain_hash FROM audit_events WHERE seq = 6');
    await query('DELETE FROM audit_events WHERE seq <= 6');
    await query('UPDATE audit_chain SET floor_seq = ?, floor_hash = ? WHERE id = 1', [Number(victim!.seq), victim!.chain_hash]);
    const moved = await verifier(KEY).verify();
    expect({ ok: moved.ok, reason: moved.firstBreak?.reason, seq: moved.firstBreak?.seq }).toEqual({ ok: false, reason: 'checkpoint_moved', seq: 6 });
    // Nor does a seal copied from the real checkpoint, or none at all, pass.
    await query('UPDATE audit_chain SET floor_seal = NULL WHERE id = 1');
    expect((await verifier(KEY).verify()).firstBreak?.reason).toBe('checkpoint_moved');
  });
});
