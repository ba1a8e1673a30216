import { createHash } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { Email } from '../../../src/domain/users/email';
import { User } from '../../../src/domain/users/user';
import { EmailAlreadyTakenError, UsernameAlreadyTakenError } from '../../../src/domain/users/user.errors';
import { Username } from '../../../src/domain/users/username';
import type { Role } from '../../../src/domain/roles/role';
import { SEEDED_PERMISSIONS, SEEDED_ROLES } from '../../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { MIGRATIONS } from '../../../src/infrastructure/persistence/migrations';
import { ADMINISTRATION_PERMISSIONS } from '../../../src/infrastructure/persistence/migrations/1764300000000-user-administration';
import { isMysqlFamily } from '../../../src/infrastructure/persistence/typeorm/data-source';
import { runMigrations } from '../../../src/infrastructure/persistence/typeorm/migrate';
import { TypeOrmPermissionRepository } from '../../../src/infrastructure/persistence/typeorm/typeorm-permission.repository';
import { TypeOrmRoleRepository } from '../../../src/infrastructure/persistence/typeorm/typeorm-role.repository';
import { toRecord as recordOf } from '../../../src/infrastructure/persistence/typeorm/typeorm-user.repository';
import { UserSchema } from '../../../src/infrastructure/persistence/typeorm/records';
import { AdjustableClock } from '../../support/adjustable-clock';
import { TypeOrmAdapters } from '../../support/typeorm-adapters';
import { UuidV7IdGenerator } from '../../../src/infrastructure/system/uuid-v7-id-generator';
import { ALL_TARGETS } from './database-targets';
import type { PermissionRepository } from '../../../src/application/ports/permission-repository.port';
import { CachedPermissionRepository } from '../../../src/infrastructure/caching/cached-permission-repository';

const ids = new UuidV7IdGenerator();
const member: Role = { id: SEEDED_ROLES.member, name: 'member', permissions: [] };

function pendingUser(email: string, at = new Date('2026-01-31T12:00:00.123Z')): User {
  return User.invite({
    id: ids.next(),
    email: Email.parse(email),
    role: member,
    invitedBy: ids.next(),
    now: at,
    newId: () => ids.next(),
  });
}

function joinedUser(username: string, email: string): User {
  return User.createJoined({
    id: ids.next(),
    email: Email.parse(email),
    name: 'Zoë 🚀 Ünïcode',
    username: Username.parse(username),
    passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA',
    role: member,
    now: new Date('2026-02-01T00:00:00.007Z'),
  });
}

async function outboxRows(dataSource: DataSource): Promise<{ id: string; aggregate_id: string; type: string; payload: string }[]> {
  return dataSource.query('SELECT id, aggregate_id, type, payload FROM outbox_events ORDER BY id');
}

describe.each(ALL_TARGETS)('persistence on $name', (target) => {
  let dataSource: DataSource;
  let dispose: () => Promise<void>;
  let adapters: TypeOrmAdapters;

  beforeAll(async () => {
    ({ dataSource, dispose } = await target.open());
    adapters = new TypeOrmAdapters(dataSource);
    expect(await runMigrations(dataSource)).toEqual(MIGRATIONS.map((m) => m.name));
  });

  afterAll(async () => dispose());

  describe('migrations', () => {
    it('apply once: a second run finds nothing to do', async () => {
      expect(await runMigrations(dataSource)).toEqual([]);
    });

    it('seed the admin and member roles and the permissions of PRODUCT.md and of user administration (#11)', async () => {
      const roles = await new TypeOrmRoleRepository({ manager: dataSource.manager, sqliteWriteQueue: adapters.services.sqliteWriteQueue }).findAll();
      expect(roles.map((r) => [r.id, r.name, [...r.permissions].sort()])).toEqual([
        [
          SEEDED_ROLES.admin,
          'admin',
          ['permissions:read', 'roles:read', 'roles:write', 'users:deactivate', 'users:delete', 'users:invite', 'users:read', 'users:update'],
        ],
        [SEEDED_ROLES.member, 'member', []],
      ]);
    });
  });

  describe('TypeOrmUserRepository', () => {
    it('round-trips a joined user with unicode and millisecond datetimes', async () => {
      const users = adapters.users();
      const user = joinedUser('Round.Trip', 'round.trip@example.com');
      await users.add(user);
      const loaded = await users.findById(user.id);
      expect(loaded?.toSnapshot()).toEqual(user.toSnapshot());
      expect(loaded?.joinedAt?.toISOString()).toBe('2026-02-01T00:00:00.007Z');
      expect(loaded?.isJoined).toBe(true);
    });

    it('leaves the unknown fields of a pending user empty', async () => {
      const users = adapters.users();
      const user = pendingUser('pending.one@example.com');
      await users.add(user);
      const loaded = await users.findById(user.id);
      expect(loaded?.username).toBeUndefined();
      expect(loaded?.name).toBeUndefined();
      expect(loaded?.joinedAt).toBeUndefined();
      expect(loaded?.isJoined).toBe(false);
      expect(loaded?.invitedAt.toISOString()).toBe('2026-01-31T12:00:00.123Z');
    });

    it('finds by username and e-mail case-insensitively', async () => {
      const users = adapters.users();
      const user = joinedUser('MixedCase', 'Mixed.Case@Example.COM');
      await users.add(user);
      expect((await users.findByUsername('mixedcase'))?.id).toBe(user.id);
      expect((await users.findByUsername('MIXEDCASE'))?.id).toBe(user.id);
      expect(await users.existsWithEmail('mixed.case@example.com')).toBe(true);
      expect(await users.existsWithEmail('MIXED.CASE@EXAMPLE.COM')).toBe(true);
      expect(await users.existsWithEmail('other@example.com')).toBe(false);
      expect(await users.findByUsername('nobody')).toBeNull();
    });

    it('refuses a second user with the same e-mail in another case', async () => {
      const users = adapters.users();
      await users.add(pendingUser('dup@example.com'));
      await expect(users.add(pendingUser('DUP@Example.com'))).rejects.toBeInstanceOf(EmailAlreadyTakenError);
    });

    it('refuses a second user with the same username in another case', async () => {
      const users = adapters.users();
      await users.add(joinedUser('taken_name', 'first@example.com'));
      await expect(users.add(joinedUser('TAKEN_NAME', 'second@example.com'))).rejects.toBeInstanceOf(
        UsernameAlreadyTakenError,
      );
    });

    it('keeps accented addresses distinct from unaccented ones', async () => {
      const users = adapters.users();
      await users.add(pendingUser('josé@example.com'));
      await expect(users.add(pendingUser('jose@example.com'))).resolves.toBeUndefined();
    });

    it('lists in creation order with the true total, across pages', async () => {
      const users = adapters.users();
      const before = await users.list({ offset: 0, limit: 1000 });
      const added: string[] = [];
      for (let i = 0; i < 5; i++) {
        const user = pendingUser(`order${i}@example.com`);
        added.push(user.id);
        await users.add(user);
      }
      const all = await users.list({ offset: 0, limit: 1000 });
      expect(all.total).toBe(before.total + 5);
      expect(all.items.map((u) => u.id).slice(-5)).toEqual(added);
      const ordered = [...all.items.map((u) => u.id)].sort();
      expect(all.items.map((u) => u.id)).toEqual(ordered);

      const pages = [];
      for (let offset = 0; offset < all.total; offset += 3) pages.push(...(await users.list({ offset, limit: 3 })).items);
      expect(pages.map((u) => u.id)).toEqual(all.items.map((u) => u.id));
      expect((await users.list({ offset: all.total + 10, limit: 3 })).items).toEqual([]);
    });

    it('answers concurrent look-ups by id together, each as fresh as its own query', async () => {
      const users = adapters.users();
      const joined = [joinedUser(`batch-${ids.next().slice(-8)}`, `batch-${ids.next()}@example.com`), pendingUser(`batch-${ids.next()}@example.com`)];
      for (const user of joined) await users.add(user);
      const asked = [joined[0]!.id, joined[1]!.id, ids.next(), joined[0]!.id];
      const found = await Promise.all(asked.map((id) => users.findById(id)));
      expect(found.map((user) => user?.id ?? null)).toEqual([asked[0], asked[1], null, asked[0]]);
      expect(found[0]!.toSnapshot()).toEqual(joined[0]!.toSnapshot());

      const version = found[0]!.tokenVersion;
      const inFlight = Promise.all(Array.from({ length: 20 }, () => users.findById(joined[0]!.id)));
      await users.incrementTokenVersion(joined[0]!.id);
      const after = await Promise.all(Array.from({ length: 20 }, () => users.findById(joined[0]!.id)));
      expect(after.map((user) => user!.tokenVersion)).toEqual(Array(20).fill(version + 1));
      await inFlight;
    });

    it("moves the cached total with this process's own committed writes, without counting again", async () => {
      // A process of its own whose clock stands still: the count taken below never ages, however slow the machine.
      const clock = new AdjustableClock();
      clock.freeze();
      const replica = new TypeOrmAdapters(dataSource, { clock });
      const users = replica.users();
      const unitOfWork = replica.unitOfWork();
      const total = async () => (await users.list({ offset: 0, limit: 1 })).total;
      const start = await total(); // counted now, and fresh until the clock moves
      // Another process's write (straight to the table): not in the cached total until a recount.
      await dataSource.getRepository(UserSchema).insert({ ...recordOf(pendingUser(`other-${ids.next()}@example.com`)) });
      expect(await total()).toBe(start);

      const own = pendingUser(`own-${ids.next()}@example.com`);
      await users.add(own);
      expect(await total()).toBe(start + 1); // a recount would also have found the other process's row
      await unitOfWork.run(async ({ users: inTransaction }) => inTransaction.add(pendingUser(`tx-${ids.next()}@example.com`)));
      expect(await total()).toBe(start + 2);
      await expect(
        unitOfWork.run(async ({ users: inTransaction }) => {
          await inTransaction.add(pendingUser(`rolled-back-${ids.next()}@example.com`));
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      expect(await total()).toBe(start + 2);
      await users.delete(own.id);
      const afterDelete = await total();
      // Drivers that report the rows a DELETE removed move the total; others drop it and count again.
      expect([start + 1, start + 2]).toContain(afterDelete);
      replica.services.userTotalCache.invalidate();
      expect(await total()).toBe(start + 2); // the exact count: the other process's row and one of ours
    });

    it('reads deep pages (ids first, from the nearer end) exactly as the ordered table has them', async () => {
      // A process of its own: its first count comes after every write the earlier tests made through others.
      const users = new TypeOrmAdapters(dataSource).users();
      const added: User[] = [];
      for (let i = 0; i < 1300; i++) added.push(pendingUser(`deep${i}@example.com`));
      for (let i = 0; i < added.length; i += 100) await Promise.all(added.slice(i, i + 100).map((user) => users.add(user)));
      const ordered = ((await dataSource.query('SELECT id FROM users ORDER BY id')) as { id: string }[]).map((row) => row.id);
      const total = ordered.length;
      expect(total).toBeGreaterThan(1300);
      // Past the direct-read offset: one page walked forwards, one nearer the end (walked backwards),
      // the last partial page, and a page running past the end.
      for (const offset of [1000, 1007, total - 25, total - 3, total - 1]) {
        const page = await users.list({ offset, limit: 10 });
        expect(page.total).toBe(total);
        expect(page.items.map((u) => u.id)).toEqual(ordered.slice(offset, offset + 10));
      }
      const sample = (await users.list({ offset: total - 1, limit: 10 })).items[0]!;
      const original = added.find((user) => user.id === sample.id)!;
      expect(sample.toSnapshot()).toEqual(original.toSnapshot());
    });
  });

  describe('TypeOrmUserRepository updates', () => {
    it('saves a join, and refuses a username taken in another case', async () => {
      const users = adapters.users();
      await users.add(joinedUser('Holder', 'holder@example.com'));
      const pending = pendingUser('joining@example.com');
      await users.add(pending);
      const loaded = (await users.findById(pending.id))!;
      loaded.join({
        name: 'Joiner',
        username: Username.parse('HOLDER'),
        passwordHash: 'h',
        role: member,
        now: new Date('2026-03-01T00:00:00.001Z'),
        newId: () => ids.next(),
      });
      await expect(users.update(loaded)).rejects.toBeInstanceOf(UsernameAlreadyTakenError);
      const fresh = (await users.findById(pending.id))!;
      fresh.join({ name: 'Joiner', username: Username.parse('joiner'), passwordHash: 'h', role: member, now: new Date('2026-03-01T00:00:00.001Z'), newId: () => ids.next() });
      await users.update(fresh);
      const saved = await users.findById(pending.id);
      expect(saved?.isJoined).toBe(true);
      expect(saved?.joinedAt?.toISOString()).toBe('2026-03-01T00:00:00.001Z');
      expect((await users.findByUsername('JOINER'))?.id).toBe(pending.id);
    });

    it('deletes a user and, with it, its invitation', async () => {
      const users = adapters.users();
      const invitations = adapters.invitations();
      const user = pendingUser('deleted@example.com');
      await users.add(user);
      await invitations.replaceForUser({ userId: user.id, tokenHash: 'd'.repeat(64), createdAt: new Date(), expiresAt: new Date() });
      await users.delete(user.id);
      expect(await users.findById(user.id)).toBeNull();
      expect(await invitations.findByTokenHash('d'.repeat(64))).toBeNull();
    });
  });

  describe('TypeOrmInvitationRepository', () => {
    it('keeps one live invitation per user: a new one kills the old token', async () => {
      const users = adapters.users();
      const invitations = adapters.invitations();
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
      await adapters.users().add(user);
      const runner = dataSource.createQueryRunner(); // one connection, so SHOW WARNINGS sees the upsert
      try {
        const invitations = adapters.invitations(runner.manager);
        const first = { userId: user.id, tokenHash: 'e'.repeat(64), createdAt: new Date('2026-01-01T00:00:00.000Z'), expiresAt: new Date('2026-01-08T00:00:00.000Z') };
        await invitations.replaceForUser(first);
        await invitations.replaceForUser({ ...first, tokenHash: 'f'.repeat(64), expiresAt: new Date('2026-01-09T00:00:00.000Z') });
        expect(isMysqlFamily(dataSource) ? await runner.query('SHOW WARNINGS') : []).toEqual([]);
        expect(await invitations.findByTokenHash('f'.repeat(64))).toEqual({ ...first, tokenHash: 'f'.repeat(64), expiresAt: new Date('2026-01-09T00:00:00.000Z') });
      } finally {
        await runner.release();
      }
    });

    it('marks an invitation used once: a second mark changes nothing', async () => {
      const users = adapters.users();
      const invitations = adapters.invitations();
      const user = pendingUser('used.once@example.com');
      await users.add(user);
      await invitations.replaceForUser({ userId: user.id, tokenHash: 'c'.repeat(64), createdAt: new Date(), expiresAt: new Date() });
      expect(await invitations.markUsed(user.id, new Date('2026-02-02T02:02:02.002Z'))).toBe(true);
      expect(await invitations.markUsed(user.id, new Date('2026-03-03T03:03:03.003Z'))).toBe(false);
      expect((await invitations.findByTokenHash('c'.repeat(64)))?.usedAt?.toISOString()).toBe('2026-02-02T02:02:02.002Z');
    });
  });

  describe('TypeOrmProcessedEventStore', () => {
    it('remembers handled events per consumer, and a second record is harmless', async () => {
      const store = adapters.processedEvents();
      const eventId = ids.next();
      expect(await store.has('mailer', eventId)).toBe(false);
      await store.record('mailer', eventId, new Date());
      await store.record('mailer', eventId, new Date());
      expect(await store.has('mailer', eventId)).toBe(true);
      expect(await store.has('other-consumer', eventId)).toBe(false);
    });
  });

  describe.each([
    { name: 'TypeOrmPermissionRepository', make: (): PermissionRepository => new TypeOrmPermissionRepository(dataSource) },
    {
      name: 'CachedPermissionRepository over it',
      make: (): PermissionRepository => new CachedPermissionRepository(new TypeOrmPermissionRepository(dataSource)),
    },
  ])('$name', ({ make }) => {
    const repo = make;

    it('lists every seeded permission ordered by group then name', async () => {
      const { items, total } = await repo().list({}, { offset: 0, limit: 100 });
      expect(total).toBe(SEEDED_PERMISSIONS.length + ADMINISTRATION_PERMISSIONS.length);
      expect(items.map((p) => `${p.group}/${p.name}`)).toEqual([
        'permissions/permissions:read',
        'roles/roles:read',
        'roles/roles:write',
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
    const inner = new TypeOrmPermissionRepository(dataSource);
    let reads = 0;
    let now = 0;
    const cached = new CachedPermissionRepository({ all: () => (reads++, inner.all()) }, 300, () => now);
    await Promise.all(Array.from({ length: 20 }, () => cached.list({}, { offset: 0, limit: 100 })));
    expect(reads).toBe(1);
    const id = ids.next();
    await dataSource.query('INSERT INTO permissions (id, group_name, name) VALUES (?, ?, ?)', [id, 'audit', 'audit:read']);
    try {
      expect((await cached.list({ group: 'audit' }, { offset: 0, limit: 100 })).total).toBe(0);
      now += 301; // the catalogue's TTL has passed
      expect((await cached.list({ group: 'audit' }, { offset: 0, limit: 100 })).items).toEqual([{ id, group: 'audit', name: 'audit:read' }]);
      expect(reads).toBe(2);
    } finally {
      await dataSource.query('DELETE FROM permissions WHERE id = ?', [id]);
    }
  });

  describe('TypeOrmLoginAttempts', () => {
    const policy = { threshold: 3, baseWaitSeconds: 60, maxWaitSeconds: 900 };
    const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, seconds));
    const attempts = () => adapters.loginAttempts();

    it('claims up to the threshold, then refuses; a success starts the count over', async () => {
      const account = `claims-${ids.next()}`;
      const results = [];
      for (let i = 0; i < 5; i++) results.push(await attempts().claim(account, at(0), policy));
      expect(results).toEqual([true, true, true, false, false]);
      await attempts().succeeded(account);
      expect(await attempts().claim(account, at(1), policy)).toBe(true);
    });

    it('counts exactly under parallel claims: never more than the threshold', async () => {
      const account = `parallel-${ids.next()}`;
      const results = await Promise.all(Array.from({ length: 20 }, () => attempts().claim(account, at(0), policy)));
      expect(results.filter(Boolean)).toHaveLength(3);
    });

    it('locks after the allowance is spent, for a wait that doubles, and unlocks when it is over', async () => {
      const account = `lock-${ids.next()}`;
      const spend = async (now: Date) => {
        for (let i = 0; i < policy.threshold; i++) {
          expect(await attempts().claim(account, now, policy)).toBe(true);
          await attempts().failed(account, now, policy);
        }
      };
      await spend(at(0));
      expect(await attempts().claim(account, at(59), policy)).toBe(false); // locked for 60 s
      await spend(at(60)); // the wait is over: a full allowance again
      expect(await attempts().claim(account, at(60 + 119), policy)).toBe(false); // second lock: 120 s
      expect(await attempts().claim(account, at(60 + 120), policy)).toBe(true);
      await attempts().succeeded(account);
      const [row] = (await dataSource.query('SELECT failures, lockouts, locked_until FROM login_attempts WHERE username_key = ?', [account])) as {
        failures: number | string;
        lockouts: number | string;
        locked_until: unknown;
      }[];
      expect([Number(row!.failures), Number(row!.lockouts), row!.locked_until]).toEqual([0, 0, null]);
    });

    it('keys a name longer than the column by its SHA-256', async () => {
      const long = `x${'y'.repeat(100)}-${ids.next()}`;
      expect(await attempts().claim(long, at(0), policy)).toBe(true);
      const rows = (await dataSource.query('SELECT username_key FROM login_attempts WHERE username_key = ?', [
        createHash('sha256').update(long, 'utf8').digest('hex'),
      ])) as unknown[];
      expect(rows).toHaveLength(1);
    });
  });

  describe('TypeOrmUnitOfWork', () => {
    it('writes the user and its outbox event together', async () => {
      const unitOfWork = adapters.unitOfWork();
      const user = pendingUser('together@example.com');
      await unitOfWork.run(async ({ users, outbox }) => {
        await users.add(user);
        await outbox.append(user.pullDomainEvents());
      });
      const rows = (await outboxRows(dataSource)).filter((row) => row.aggregate_id === user.id);
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
      const unitOfWork = adapters.unitOfWork();
      const user = pendingUser('rolled.back@example.com');
      await expect(
        unitOfWork.run(async ({ users, outbox }) => {
          await users.add(user);
          await outbox.append(user.pullDomainEvents());
          throw new Error('boom after the writes');
        }),
      ).rejects.toThrow('boom after the writes');
      expect(await adapters.users().findById(user.id)).toBeNull();
      expect((await outboxRows(dataSource)).filter((row) => row.aggregate_id === user.id)).toEqual([]);
    });

    it('rolls back the outbox row when a unique violation ends the transaction', async () => {
      const unitOfWork = adapters.unitOfWork();
      await adapters.users().add(pendingUser('clash@example.com'));
      const second = pendingUser('CLASH@example.com');
      const events = second.pullDomainEvents();
      await expect(
        unitOfWork.run(async ({ users, outbox }) => {
          await outbox.append(events);
          await users.add(second);
        }),
      ).rejects.toBeInstanceOf(EmailAlreadyTakenError);
      expect((await outboxRows(dataSource)).filter((row) => row.id === events[0].id)).toEqual([]);
    });

    it('keeps concurrent transactions apart', async () => {
      const unitOfWork = adapters.unitOfWork();
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
      const users = adapters.users();
      const present = await Promise.all(batch.map(async (u) => (await users.findById(u.id)) !== null));
      expect(present).toEqual([true, false, true, false, true, false, true, false]);
      const rows = await outboxRows(dataSource);
      expect(batch.map((u) => rows.some((row) => row.aggregate_id === u.id))).toEqual(present);
    });
  });
});
