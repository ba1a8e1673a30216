import type { TransactionScope } from '../../../src/application/ports/unit-of-work.port';
import { RoleEntity } from '../../../src/domain/roles/role.entity';
import { CachedRoleRepository } from '../../../src/infrastructure/caching/cached-role-repository';
import { SEEDED_PERMISSIONS, SEEDED_ROLES } from '../../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { TypeOrmRoleRepository } from '../../../src/infrastructure/persistence/typeorm/typeorm-role.repository';
import { UuidV7IdGenerator } from '../../../src/infrastructure/system/uuid-v7-id-generator';
import { User } from '../../../src/domain/users/user';
import { Email } from '../../../src/domain/users/email';
import { Username } from '../../../src/domain/users/username';
import { ALL_TARGETS, migratedDatabase } from './database-targets';

const ids = new UuidV7IdGenerator();
const by = () => ({ by: ids.next(), now: new Date('2026-02-01T00:00:00.007Z'), newId: () => ids.next() });
const [usersRead, usersInvite] = SEEDED_PERMISSIONS.map((p) => ({ id: p.id, name: p.name }));

describe.each(ALL_TARGETS)('TypeOrmRoleRepository on $name', (target) => {
  const db = migratedDatabase(target);
  let reads: TypeOrmRoleRepository;

  beforeAll(() => {
    reads = new TypeOrmRoleRepository({ manager: db.dataSource.manager, sqliteWriteQueue: db.adapters.services.sqliteWriteQueue });
  });

  const inUnit = <T>(work: (scope: TransactionScope) => Promise<T>) => db.adapters.unitOfWork().run(work);
  const create = (name: string, permissions = [usersRead!]) =>
    inUnit(async ({ roles }) => {
      const role = RoleEntity.create({ id: ids.next(), name, permissions, ...by() });
      await roles.insert(role);
      return role.id;
    });

  // What every RoleStore promises (names, versions, deletes) is the contract's (test/contract/role-store.contract.ts);
  // here what only the tables show: the catalogue's revision, and an erased user's row.
  it('moves the catalogue revision on with every committed change, and not with a rolled back one', async () => {
    const id = await create('versioned');
    const before = await reads.revision();
    await inUnit(async ({ roles }) => {
      const role = (await roles.findForChange(id))!;
      role.change({ name: 'versioned-2', permissions: [usersInvite!], ...by() });
      await roles.update(role);
    });
    const after = await reads.revision();
    expect(after).toBeGreaterThan(before);
    await expect(
      inUnit(async ({ roles }) => {
        const role = (await roles.findForChange(id))!;
        role.change({ name: 'versioned-3', ...by() });
        await roles.update(role);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await reads.revision()).toBe(after);
  });

  it('erases a user’s row onto the built-in member role, so deleting its role moves nothing; a row erased by an older version is moved then', async () => {
    const id = await create('deletable');
    const user = User.createJoined({
      id: ids.next(),
      email: Email.parse(`holder-${id}@example.com`),
      name: 'Holder',
      username: Username.parse(`holder-${id.slice(-12)}`),
      passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA',
      role: { id, name: 'deletable', permissions: [] },
      now: new Date(),
    });
    await db.adapters.users().add(user);
    const remove = () =>
      inUnit(async ({ roles }) => {
        const role = (await roles.findForChange(id))!;
        role.delete(by());
        await roles.delete(role, SEEDED_ROLES.member);
      });
    const roleOf = async () => ((await db.dataSource.query('SELECT role_id FROM users WHERE id = ?', [user.id])) as { role_id: string }[])[0]!.role_id;
    user.delete(by());
    await db.adapters.users().erase(user);
    expect(await roleOf()).toBe(SEEDED_ROLES.member);
    // As an older version erased it: the row kept its role.
    await db.dataSource.query('UPDATE users SET role_id = ? WHERE id = ?', [id, user.id]);
    await remove();
    expect((await reads.findAllDetails()).some((r) => r.id === id)).toBe(false);
    expect(await roleOf()).toBe(SEEDED_ROLES.member);
  });

  it('a cache over it sees a change committed through another repository at once', async () => {
    const id = await create('cached');
    const cache = new CachedRoleRepository(reads);
    expect(await cache.findById(id)).toMatchObject({ permissions: ['users:read'] });
    await inUnit(async ({ roles }) => {
      const role = (await roles.findForChange(id))!;
      role.change({ permissions: [], ...by() });
      await roles.update(role);
    });
    expect(await cache.findById(id)).toMatchObject({ permissions: [] });
  });
});
