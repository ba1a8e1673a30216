import { AUDIT_PERMISSIONS } from '../../../src/infrastructure/persistence/migrations/1765300000000-audit-trail';
import type { DataSource } from 'typeorm';
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

    it('index a role’s users once, by (role_id, id, status): the (role_id, id) prefix of it is dropped (1765900000000)', async () => {
      const runner = db.dataSource.createQueryRunner();
      try {
        const byRole = (await runner.getTable('users'))!.indices.filter((i) => i.columnNames[0] === 'role_id').map((i) => [i.name, i.columnNames]);
        expect(byRole.sort()).toEqual([
          ['ix_users_role_id_status', ['role_id', 'id', 'status']],
          ['ix_users_role_status_id', ['role_id', 'status', 'id']],
        ]);
      } finally {
        await runner.release();
      }
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
