import { AUDIT_PERMISSIONS } from '../../../src/infrastructure/persistence/migrations/1765300000000-audit-trail';
import { createHash } from 'node:crypto';
import type { DataSource, QueryRunner } from 'typeorm';
import type { AuditEntry } from '../../../src/domain/audit/audit-entry';
import { EmailAlreadyTakenError } from '../../../src/domain/users/user.errors';
import { SEEDED_PERMISSIONS, SEEDED_ROLES } from '../../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { MIGRATIONS } from '../../../src/infrastructure/persistence/migrations';
import { ADMINISTRATION_PERMISSIONS } from '../../../src/infrastructure/persistence/migrations/1764300000000-user-administration';
import { SERVICE_ACCOUNT_PERMISSIONS } from '../../../src/infrastructure/persistence/migrations/1765000000000-service-accounts';
import { TOKEN_PERMISSIONS } from '../../../src/infrastructure/persistence/migrations/1765100000000-token-introspection';
import { isMysqlFamily } from '../../../src/infrastructure/persistence/typeorm/data-source';
import { runMigrations } from '../../../src/infrastructure/persistence/typeorm/migrate';
import { TypeOrmPermissionRepository } from '../../../src/infrastructure/persistence/typeorm/typeorm-permission.repository';
import { TypeOrmRoleRepository } from '../../../src/infrastructure/persistence/typeorm/typeorm-role.repository';
import { UuidV7IdGenerator } from '../../../src/infrastructure/system/uuid-v7-id-generator';
import { pendingUser } from '../../contract/contract-kit';
import { ALL_TARGETS, migratedDatabase } from './database-targets';
import type { PermissionRepository } from '../../../src/application/ports/permission-repository.port';
import { CachedPermissionRepository } from '../../../src/infrastructure/caching/cached-permission-repository';

const ids = new UuidV7IdGenerator();

async function outboxRows(dataSource: DataSource): Promise<{ id: string; aggregate_id: string; type: string; payload: string }[]> {
  return dataSource.query('SELECT id, aggregate_id, type, payload FROM outbox_events ORDER BY id');
}

describe.each(ALL_TARGETS)('persistence on $name', (target) => {
  const db = migratedDatabase(target);

  describe('migrations', () => {
    it('apply every migration to an empty database once: a second run finds nothing to do', async () => {
      expect(db.applied).toEqual(MIGRATIONS.map((m) => m.name));
      expect(await runMigrations(db.dataSource)).toEqual([]);
    });

    it('seed the admin and member roles and the permissions of PRODUCT.md and of user administration (#11)', async () => {
      const roles = await new TypeOrmRoleRepository({ manager: db.dataSource.manager, sqliteWriteQueue: db.adapters.services.sqliteWriteQueue }).findAll();
      expect(roles.map((r) => [r.id, r.name, [...r.permissions].sort()])).toEqual([
        [
          SEEDED_ROLES.admin,
          'admin',
          ['audit:read', 'permissions:read', 'roles:read', 'roles:write', 'service-accounts:read', 'service-accounts:write', 'tokens:introspect', 'users:deactivate', 'users:delete', 'users:invite', 'users:read', 'users:update'],
        ],
        [SEEDED_ROLES.member, 'member', []],
      ]);
    });
  });

  describe('TypeOrmInvitationRepository', () => {
    it('keeps one live invitation per user: a new one kills the old token', async () => {
      const users = db.adapters.users();
      const invitations = db.adapters.invitations();
      const user = pendingUser('invited.once@example.com');
      await users.add(user);
      const first = { userId: user.id, tokenHash: 'a'.repeat(64), createdAt: new Date('2026-01-01T00:00:00.000Z'), expiresAt: new Date('2026-01-08T00:00:00.000Z') };
      await invitations.replaceForUser(first);
      expect(await invitations.findByTokenHash('a'.repeat(64))).toEqual(first);
      await invitations.replaceForUser({ ...first, tokenHash: 'b'.repeat(64) });
      expect(await invitations.findByTokenHash('a'.repeat(64))).toBeNull();
      expect((await invitations.findByTokenHash('b'.repeat(64)))?.userId).toBe(user.id);
    });

    it('replaces with a statement the server takes without a warning (MySQL 8.0.20+ deprecates VALUES() there)', async () => {
      const user = pendingUser('replaced.quietly@example.com');
      await db.adapters.users().add(user);
      const runner = db.dataSource.createQueryRunner(); // one connection, so SHOW WARNINGS sees the upsert
      try {
        const invitations = db.adapters.invitations(runner.manager);
        const first = { userId: user.id, tokenHash: 'e'.repeat(64), createdAt: new Date('2026-01-01T00:00:00.000Z'), expiresAt: new Date('2026-01-08T00:00:00.000Z') };
        await invitations.replaceForUser(first);
        await invitations.replaceForUser({ ...first, tokenHash: 'f'.repeat(64), expiresAt: new Date('2026-01-09T00:00:00.000Z') });
        expect(isMysqlFamily(db.dataSource) ? await runner.query('SHOW WARNINGS') : []).toEqual([]);
        expect(await invitations.findByTokenHash('f'.repeat(64))).toEqual({ ...first, tokenHash: 'f'.repeat(64), expiresAt: new Date('2026-01-09T00:00:00.000Z') });
      } finally {
        await runner.release();
      }
    });

    it('marks an invitation used once: a second mark changes nothing', async () => {
      const users = db.adapters.users();
      const invitations = db.adapters.invitations();
      const user = pendingUser('used.once@example.com');
      await users.add(user);
      const link = { userId: user.id, tokenHash: 'c'.repeat(64) };
      await invitations.replaceForUser({ ...link, createdAt: new Date(), expiresAt: new Date() });
      expect(await invitations.markUsed(link, new Date('2026-02-02T02:02:02.002Z'))).toBe(true);
      expect(await invitations.markUsed(link, new Date('2026-03-03T03:03:03.003Z'))).toBe(false);
      expect((await invitations.findByTokenHash('c'.repeat(64)))?.usedAt?.toISOString()).toBe('2026-02-02T02:02:02.002Z');
    });
  });

  describe('TypeOrmProcessedEventStore', () => {
    it('remembers handled events per consumer, and a second record is harmless', async () => {
      const store = db.adapters.processedEvents();
      const eventId = ids.next();
      expect(await store.has('mailer', eventId)).toBe(false);
      await store.record('mailer', eventId, new Date());
      await store.record('mailer', eventId, new Date());
      expect(await store.has('mailer', eventId)).toBe(true);
      expect(await store.has('other-consumer', eventId)).toBe(false);
    });
  });

  describe.each([
    { name: 'TypeOrmPermissionRepository', make: (): PermissionRepository => new TypeOrmPermissionRepository(db.dataSource) },
    {
      name: 'CachedPermissionRepository over it',
      make: (): PermissionRepository => new CachedPermissionRepository(new TypeOrmPermissionRepository(db.dataSource)),
    },
  ])('$name', ({ make }) => {
    const repo = make;

    it('lists every seeded permission ordered by group then name', async () => {
      const { items, total } = await repo().list({}, { offset: 0, limit: 100 });
      expect(total).toBe(SEEDED_PERMISSIONS.length + ADMINISTRATION_PERMISSIONS.length + SERVICE_ACCOUNT_PERMISSIONS.length + TOKEN_PERMISSIONS.length + AUDIT_PERMISSIONS.length);
      expect(items.map((p) => `${p.group}/${p.name}`)).toEqual([
        'audit/audit:read',
        'permissions/permissions:read',
        'roles/roles:read',
        'roles/roles:write',
        'service-accounts/service-accounts:read',
        'service-accounts/service-accounts:write',
        'tokens/tokens:introspect',
        'users/users:deactivate',
        'users/users:delete',
        'users/users:invite',
        'users/users:read',
        'users/users:update',
      ]);
    });

    it('filters by exact group and name', async () => {
      expect((await repo().list({ group: 'users' }, { offset: 0, limit: 100 })).total).toBe(5);
      expect((await repo().list({ group: 'USERS' }, { offset: 0, limit: 100 })).total).toBe(0);
      expect((await repo().list({ group: 'user' }, { offset: 0, limit: 100 })).total).toBe(0);
      const byName = await repo().list({ name: 'users:read' }, { offset: 0, limit: 100 });
      expect(byName.items).toEqual([{ id: SEEDED_PERMISSIONS[0].id, group: 'users', name: 'users:read' }]);
      expect((await repo().list({ group: 'permissions', name: 'users:read' }, { offset: 0, limit: 100 })).total).toBe(0);
    });

    it('pages with the filtered total', async () => {
      const page2 = await repo().list({ group: 'users' }, { offset: 1, limit: 1 });
      expect(page2).toEqual({ items: [{ id: ADMINISTRATION_PERMISSIONS[2].id, group: 'users', name: 'users:delete' }], total: 5 });
    });
  });

  it('CachedPermissionRepository reads the catalogue once per lifetime, and shows a new permission after it', async () => {
    const inner = new TypeOrmPermissionRepository(db.dataSource);
    let reads = 0;
    let now = 0;
    const cached = new CachedPermissionRepository({ all: () => (reads++, inner.all()) }, 300, () => now);
    await Promise.all(Array.from({ length: 20 }, () => cached.list({}, { offset: 0, limit: 100 })));
    expect(reads).toBe(1);
    const id = ids.next();
    await db.dataSource.query('INSERT INTO permissions (id, group_name, name) VALUES (?, ?, ?)', [id, 'reports', 'reports:read']);
    try {
      expect((await cached.list({ group: 'reports' }, { offset: 0, limit: 100 })).total).toBe(0);
      now += 301; // the catalogue's TTL has passed
      expect((await cached.list({ group: 'reports' }, { offset: 0, limit: 100 })).items).toEqual([{ id, group: 'reports', name: 'reports:read' }]);
      expect(reads).toBe(2);
    } finally {
      await db.dataSource.query('DELETE FROM permissions WHERE id = ?', [id]);
    }
  });

  describe('TypeOrmLoginAttempts', () => {
    const policy = { threshold: 3, baseWaitSeconds: 60, maxWaitSeconds: 900 };
    const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, seconds));
    const attempts = () => db.adapters.loginAttempts();

    it('claims up to the threshold, answering each claim’s count, then refuses; a success starts the count over', async () => {
      const account = `claims-${ids.next()}`;
      const results = [];
      for (let i = 0; i < 5; i++) results.push(await attempts().claim(account, at(0), policy));
      expect(results).toEqual([1, 2, 3, false, false]);
      await attempts().succeeded(account);
      expect(await attempts().claim(account, at(1), policy)).toBe(1);
    });

    /** Runs `work` and answers the statements it sent through the data source's query runners, with its answer. */
    const counting = async <T>(work: () => Promise<T>): Promise<{ answer: T; statements: number }> => {
      const statements: string[] = [];
      const createQueryRunner = db.dataSource.createQueryRunner.bind(db.dataSource);
      // SQLite hands out its one runner again and again: each is wrapped once, and unwrapped after.
      const wrapped = new Map<QueryRunner, QueryRunner['query']>();
      const spy = jest.spyOn(db.dataSource, 'createQueryRunner').mockImplementation((...args) => {
        const runner = createQueryRunner(...args);
        if (!wrapped.has(runner)) {
          const query = runner.query;
          wrapped.set(runner, query);
          runner.query = ((sql: string, ...rest: unknown[]) => (statements.push(sql), query.call(runner, sql, ...(rest as [])))) as QueryRunner['query'];
        }
        return runner;
      });
      try {
        return { answer: await work(), statements: statements.length };
      } finally {
        spy.mockRestore();
        for (const [runner, query] of wrapped) runner.query = query;
      }
    };
    const counters = async (account: string) =>
      ((await db.dataSource.query('SELECT failures, lockouts, locked_until FROM login_attempts WHERE username_key = ?', [account])) as {
        failures: number | string;
        lockouts: number | string;
        locked_until: unknown;
      }[]).map((r) => [Number(r.failures), Number(r.lockouts), r.locked_until === null ? null : 'locked']);

    it('claims in one statement whether the name was tried before or not, and refuses in one', async () => {
      const account = `one-statement-${ids.next()}`;
      const store = attempts();
      const claims = [];
      for (let i = 0; i < policy.threshold + 1; i++) claims.push(await counting(() => store.claim(account, at(0), policy)));
      expect(claims).toEqual([
        { answer: 1, statements: 1 },
        { answer: 2, statements: 1 },
        { answer: 3, statements: 1 },
        { answer: false, statements: 1 },
      ]);
    });

    it('claimSucceeded starts the counters over where a claim would count, makes a missing row at 0, and refuses as a claim does, in as many statements', async () => {
      const store = attempts();
      const fresh = `succeeded-fresh-${ids.next()}`;
      expect(await counting(() => store.claimSucceeded(fresh, at(0), policy))).toEqual({ answer: true, statements: 1 });
      expect(await counters(fresh)).toEqual([[0, 0, null]]);

      const account = `succeeded-${ids.next()}`;
      await store.claim(account, at(0), policy);
      await store.claim(account, at(0), policy);
      expect(await counting(() => store.claimSucceeded(account, at(0), policy, { claimedBefore: true }))).toEqual({ answer: true, statements: 1 });
      expect(await counters(account)).toEqual([[0, 0, null]]);

      // The allowance spent (no lock yet): refused, nothing changed, and the work of a claim refused alike.
      for (let i = 0; i < policy.threshold; i++) await store.claim(account, at(0), policy);
      const refusedClaim = await counting(() => store.claim(account, at(0), policy, { claimedBefore: true }));
      const refusedSuccess = await counting(() => store.claimSucceeded(account, at(0), policy, { claimedBefore: true }));
      expect([refusedSuccess, refusedClaim]).toEqual([{ answer: false, statements: 2 }, { answer: false, statements: 2 }]);
      expect(await counters(account)).toEqual([[3, 0, null]]);

      // Locked: refused until the wait is over, then the counters start over, the lock and its count included.
      await store.failed(account, at(0), policy);
      expect(await counters(account)).toEqual([[0, 1, 'locked']]);
      expect(await store.claimSucceeded(account, at(59), policy, { claimedBefore: true })).toBe(false);
      expect(await store.claimSucceeded(account, at(59), policy)).toBe(false);
      expect(await counters(account)).toEqual([[0, 1, 'locked']]);
      expect(await store.claimSucceeded(account, at(60), policy)).toBe(true);
      expect(await counters(account)).toEqual([[0, 0, null]]);
    });

    it('counts exactly under parallel claims: never more than the threshold, each count answered once', async () => {
      const account = `parallel-${ids.next()}`;
      const results = await Promise.all(Array.from({ length: 20 }, () => attempts().claim(account, at(0), policy)));
      expect(results.filter((r) => r !== false).sort()).toEqual([1, 2, 3]);
    });

    it('a failure whose claim was below the threshold writes its entries alone and never locks; the one at the threshold locks', async () => {
      const account = `counted-${ids.next()}`;
      const entry = (code: string): AuditEntry => ({
        id: ids.next(), occurredAt: at(0).getTime(), action: 'auth.signin_failed', outcome: 'failure', code, actor: { type: 'anonymous', id: null, name: null },
        target: { type: 'user', id: null, snapshot: account }, source: { address: null, userAgent: null }, requestId: null, changes: [],
      });
      const written: string[] = [];
      const claims = [await attempts().claim(account, at(0), policy), await attempts().claim(account, at(0), policy), await attempts().claim(account, at(0), policy)];
      expect(claims).toEqual([1, 2, 3]);
      // The first two fail after the third claimed: the counters already read 3, but neither of them spent the allowance.
      for (const claimed of [1, 2]) {
        await attempts().failed(account, at(0), policy, (lockedUntil) => {
          const e = entry(lockedUntil ? 'locked' : `below-${claimed}`);
          written.push(e.id);
          return [e];
        }, claimed);
      }
      const counters = async () =>
        ((await db.dataSource.query('SELECT failures, lockouts FROM login_attempts WHERE username_key = ?', [account])) as { failures: number | string; lockouts: number | string }[]).map((r) => [Number(r.failures), Number(r.lockouts)]);
      expect(await counters()).toEqual([[3, 0]]);
      let lockedUntil: Date | null = null;
      await attempts().failed(account, at(0), policy, (until) => ((lockedUntil = until), []), 3);
      expect([lockedUntil, await counters()]).toEqual([new Date(at(0).getTime() + 60_000), [[0, 1]]]);
      const codes = (await db.dataSource.query(`SELECT code FROM audit_events WHERE id IN (${written.map(() => '?').join(', ')}) ORDER BY code`, written)) as { code: string }[];
      expect(codes.map((r) => r.code)).toEqual(['below-1', 'below-2']);
    });

    it('locks after the allowance is spent, for a wait that doubles, and unlocks when it is over', async () => {
      const account = `lock-${ids.next()}`;
      const spend = async (now: Date) => {
        for (let i = 1; i <= policy.threshold; i++) {
          expect(await attempts().claim(account, now, policy)).toBe(i);
          await attempts().failed(account, now, policy);
        }
      };
      await spend(at(0));
      expect(await attempts().claim(account, at(59), policy)).toBe(false); // locked for 60 s
      await spend(at(60)); // the wait is over: a full allowance again
      expect(await attempts().claim(account, at(60 + 119), policy)).toBe(false); // second lock: 120 s
      expect(await attempts().claim(account, at(60 + 120), policy)).toBe(1);
      await attempts().succeeded(account);
      const [row] = (await db.dataSource.query('SELECT failures, lockouts, locked_until FROM login_attempts WHERE username_key = ?', [account])) as {
        failures: number | string;
        lockouts: number | string;
        locked_until: unknown;
      }[];
      expect([Number(row!.failures), Number(row!.lockouts), row!.locked_until]).toEqual([0, 0, null]);
    });

    it('keys a name longer than the column by its SHA-256', async () => {
      const long = `x${'y'.repeat(100)}-${ids.next()}`;
      expect(await attempts().claim(long, at(0), policy)).toBe(1);
      const rows = (await db.dataSource.query('SELECT username_key FROM login_attempts WHERE username_key = ?', [
        createHash('sha256').update(long, 'utf8').digest('hex'),
      ])) as unknown[];
      expect(rows).toHaveLength(1);
    });
  });

  describe('TypeOrmUnitOfWork', () => {
    it('writes the user and its outbox event together', async () => {
      const unitOfWork = db.adapters.unitOfWork();
      const user = pendingUser('together@example.com');
      await unitOfWork.run(async ({ users, outbox }) => {
        await users.add(user);
        await outbox.append(user.pullDomainEvents());
      });
      const rows = (await outboxRows(db.dataSource)).filter((row) => row.aggregate_id === user.id);
      expect(rows).toHaveLength(1);
      expect(rows[0].type).toBe('UserInvited');
      expect(JSON.parse(rows[0].payload)).toEqual({
        user_id: user.id,
        email: 'together@example.com',
        role: { _id: SEEDED_ROLES.member, name: 'member' },
        invited_by: user.invitedBy,
        invited_date: '2026-01-31T12:00:00.123Z',
      });
    });

    it('writes neither when the transaction fails after both writes', async () => {
      const unitOfWork = db.adapters.unitOfWork();
      const user = pendingUser('rolled.back@example.com');
      await expect(
        unitOfWork.run(async ({ users, outbox }) => {
          await users.add(user);
          await outbox.append(user.pullDomainEvents());
          throw new Error('boom after the writes');
        }),
      ).rejects.toThrow('boom after the writes');
      expect(await db.adapters.users().findById(user.id)).toBeNull();
      expect((await outboxRows(db.dataSource)).filter((row) => row.aggregate_id === user.id)).toEqual([]);
    });

    it('rolls back the outbox row when a unique violation ends the transaction', async () => {
      const unitOfWork = db.adapters.unitOfWork();
      await db.adapters.users().add(pendingUser('clash@example.com'));
      const second = pendingUser('CLASH@example.com');
      const events = second.pullDomainEvents();
      await expect(
        unitOfWork.run(async ({ users, outbox }) => {
          await outbox.append(events);
          await users.add(second);
        }),
      ).rejects.toBeInstanceOf(EmailAlreadyTakenError);
      expect((await outboxRows(db.dataSource)).filter((row) => row.id === events[0].id)).toEqual([]);
    });

    it('keeps concurrent transactions apart', async () => {
      const unitOfWork = db.adapters.unitOfWork();
      const batch = Array.from({ length: 8 }, (_, i) => pendingUser(`parallel${i}@example.com`));
      await Promise.all(
        batch.map((user, i) =>
          unitOfWork
            .run(async ({ users, outbox }) => {
              await users.add(user);
              await outbox.append(user.pullDomainEvents());
              if (i % 2 === 1) throw new Error('odd ones fail');
            })
            .catch(() => undefined),
        ),
      );
      const users = db.adapters.users();
      const present = await Promise.all(batch.map(async (u) => (await users.findById(u.id)) !== null));
      expect(present).toEqual([true, false, true, false, true, false, true, false]);
      const rows = await outboxRows(db.dataSource);
      expect(batch.map((u) => rows.some((row) => row.aggregate_id === u.id))).toEqual(present);
    });
  });
});
