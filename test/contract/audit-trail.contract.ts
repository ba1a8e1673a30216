import type { AuditLog, AuditTrail } from '../../src/application/ports/audit-trail.port';
import type { UnitOfWork } from '../../src/application/ports/unit-of-work.port';
import type { AuditAction, AuditEntry } from '../../src/domain/audit/audit-entry';
import { type ContractOptions, contractIt, type MakeStores, newId } from './contract-kit';

const T0 = Date.parse('2026-01-31T12:00:00.000Z');

function entry(overrides: Partial<AuditEntry> & { action?: AuditAction } = {}): AuditEntry {
  return {
    id: newId(),
    occurredAt: T0,
    action: 'user.updated',
    outcome: 'success',
    code: null,
    actor: { type: 'user', id: 'actor-1', name: 'root' },
    target: { type: 'user', id: 'target-1', snapshot: 'ada' },
    source: { address: '203.0.113.7', userAgent: 'curl/8.5 (x86_64) ünïcode' },
    requestId: 'req-1',
    changes: [{ field: 'role', before: 'member', after: 'admin' }],
    ...overrides,
  };
}

async function everyPage(log: AuditLog, filter: Parameters<AuditLog['page']>[0], size: number): Promise<AuditEntry[][]> {
  const pages: AuditEntry[][] = [];
  let after: Awaited<ReturnType<AuditLog['page']>>['next'];
  do {
    const page = await log.page(filter, size, after);
    pages.push(page.entries);
    after = page.next;
  } while (after && pages.length < 100);
  return pages;
}

/**
 * What AuditTrail and AuditLog promise (src/application/ports/audit-trail.port.ts): an entry reads back
 * as written; inside a unit of work it commits or rolls back with it; pages run newest first by keyset,
 * each entry once; every filter and the export over a time range.
 */
export function describeAuditTrailContract(name: string, makeSubject: MakeStores<'auditTrail' | 'auditLog' | 'unitOfWork'>, options: ContractOptions = {}): void {
  const test = contractIt(options);

  describe(`${name} honours the AuditTrail and AuditLog contract`, () => {
    let trail: AuditTrail;
    let log: AuditLog;
    let unitOfWork: UnitOfWork;

    beforeEach(async () => {
      ({ auditTrail: trail, auditLog: log, unitOfWork } = await makeSubject());
    });

    test('reads an entry back as written, nulls and changes included', async () => {
      const full = entry();
      const bare = entry({ occurredAt: T0 + 1, actor: { type: 'anonymous', id: null, name: null }, target: null, source: { address: null, userAgent: null }, requestId: null, changes: [], code: 'unknown_user', outcome: 'failure' });
      const lists = entry({ occurredAt: T0 + 2, changes: [{ field: 'permissions', before: ['users:read'], after: null }, { field: 'disabled', before: false, after: true }, { field: 'keys', before: 1, after: 2 }] });
      await trail.record([full, bare, lists]);

      expect((await log.page({}, 10)).entries).toEqual([lists, bare, full]);
    });

    test('commits an entry written in a unit of work with it, and drops it when the work fails', async () => {
      const kept = entry();
      const dropped = entry();
      await unitOfWork.run(({ audit }) => audit.record([kept]));
      await expect(
        unitOfWork.run(async ({ audit }) => {
          await audit.record([dropped]);
          throw new Error('the change failed');
        }),
      ).rejects.toThrow('the change failed');

      expect((await log.page({}, 10)).entries.map((e) => e.id)).toEqual([kept.id]);
    });

    test('pages newest first, by time then id, each entry once, with a cursor while more remain', async () => {
      // Several in one millisecond: the id orders them, and a page boundary inside it loses none.
      const entries = Array.from({ length: 7 }, (_, i) => entry({ occurredAt: T0 + Math.floor(i / 3) }));
      await trail.record(entries);
      const expected = [...entries].sort((a, b) => b.occurredAt - a.occurredAt || (b.id < a.id ? -1 : 1)).map((e) => e.id);

      const pages = await everyPage(log, {}, 2);

      expect(pages.map((p) => p.length)).toEqual([2, 2, 2, 1]);
      expect(pages.flat().map((e) => e.id)).toEqual(expected);
      expect((await log.page({}, 7)).next).toBeUndefined();
    });

    test('filters by actor, target, outcome, request id and time range', async () => {
      const a = entry({ actor: { type: 'user', id: 'u-a', name: 'a' }, occurredAt: T0 });
      const b = entry({ target: { type: 'role', id: 'r-b', snapshot: 'b' }, occurredAt: T0 + 10 });
      const c = entry({ outcome: 'failure', code: 'PERMISSION_DENIED', requestId: 'req-c', occurredAt: T0 + 20 });
      await trail.record([a, b, c]);
      const ids = async (filter: Parameters<AuditLog['page']>[0]) => (await log.page(filter, 10)).entries.map((e) => e.id);

      expect(await ids({ actorId: 'u-a' })).toEqual([a.id]);
      expect(await ids({ targetId: 'r-b' })).toEqual([b.id]);
      expect(await ids({ outcome: 'failure' })).toEqual([c.id]);
      expect(await ids({ requestId: 'req-c' })).toEqual([c.id]);
      expect(await ids({ from: T0 + 10 })).toEqual([c.id, b.id]);
      expect(await ids({ to: T0 + 10 })).toEqual([a.id]);
      expect(await ids({ from: T0 + 5, to: T0 + 15 })).toEqual([b.id]);
    });

    test('filters by the start of the action: a group, an exact action, a part of one', async () => {
      const role = entry({ action: 'user.role_changed', occurredAt: T0 });
      const failed = entry({ action: 'auth.signin_failed', occurredAt: T0 + 1 });
      const succeeded = entry({ action: 'auth.signin_succeeded', occurredAt: T0 + 2 });
      const locked = entry({ action: 'auth.locked_out', occurredAt: T0 + 3 });
      await trail.record([role, failed, succeeded, locked]);
      const ids = async (actionPrefix: string) => (await log.page({ actionPrefix }, 10)).entries.map((e) => e.id);

      expect(await ids('auth')).toEqual([locked.id, succeeded.id, failed.id]);
      expect(await ids('auth.')).toEqual([locked.id, succeeded.id, failed.id]);
      expect(await ids('auth.signin')).toEqual([succeeded.id, failed.id]);
      expect(await ids('auth.signin_failed')).toEqual([failed.id]);
      expect(await ids('user.role_')).toEqual([role.id]);
      // `_` is a character here, not a wildcard.
      expect(await ids('auth_')).toEqual([]);
    });

    test('keeps every entry of calls made at once, each call answered once its own entries are stored', async () => {
      const calls = Array.from({ length: 12 }, (_, i) => [entry({ occurredAt: T0 + i * 2 }), entry({ occurredAt: T0 + i * 2 + 1 })]);
      await Promise.all(
        calls.map(async (entries) => {
          await trail.record(entries);
          // Answered: its entries are there for any reader.
          const ids = new Set((await log.page({}, 100)).entries.map((e) => e.id));
          expect(entries.every((e) => ids.has(e.id))).toBe(true);
        }),
      );
      expect((await log.page({}, 100)).entries.map((e) => e.id).sort()).toEqual(calls.flat().map((e) => e.id).sort());
    });

    test('exports a time range oldest first, whole', async () => {
      const entries = Array.from({ length: 5 }, (_, i) => entry({ occurredAt: T0 + i * 10 }));
      await trail.record([...entries].reverse());
      const out: string[] = [];
      for await (const e of log.export({ from: T0 + 10, to: T0 + 40 })) out.push(e.id);

      expect(out).toEqual(entries.slice(1, 4).map((e) => e.id));
    });
  });
}
