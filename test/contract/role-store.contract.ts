import type { RoleRepository } from '../../src/application/ports/role-repository.port';
import type { TransactionScope, UnitOfWork } from '../../src/application/ports/unit-of-work.port';
import type { UserRepository } from '../../src/application/ports/user-repository.port';
import type { HeldPermission } from '../../src/domain/roles/role.entity';
import { RoleEntity } from '../../src/domain/roles/role.entity';
import { User } from '../../src/domain/users/user';
import { Email } from '../../src/domain/users/email';
import { Username } from '../../src/domain/users/username';
import { SEEDED_PERMISSIONS, SEEDED_ROLES } from '../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { type ContractOptions, contractIt, type MakeStores, newId, unique } from './contract-kit';

const AT = new Date('2026-02-01T00:00:00.007Z');
const by = () => ({ by: newId(), now: AT, newId });
const [usersRead, usersInvite] = SEEDED_PERMISSIONS.map((p): HeldPermission => ({ id: p.id, name: p.name }));

/** Lower-case letters only: every database orders them as the fake does, whatever its collation. */
const roleName = (prefix: string) => `${prefix}${unique('').replace(/[^a-z]/g, '')}`;

/**
 * What RoleRepository (reads, outside a transaction) and RoleStore (TransactionScope.roles) promise
 * (src/application/ports/role-repository.port.ts, issue #11), on a store holding the built-in roles as the
 * migration seeds them. The use-case tests rely on the fake (InMemoryRoleRepository) behaving so.
 */
export function describeRoleStoreContract(name: string, makeSubject: MakeStores<'users' | 'unitOfWork' | 'roles'>, options: ContractOptions = {}): void {
  const test = contractIt(options);

  describe(`${name} honours the RoleRepository and RoleStore contracts`, () => {
    let users: UserRepository;
    let unitOfWork: UnitOfWork;
    let roles: RoleRepository;

    beforeEach(async () => {
      ({ users, unitOfWork, roles } = await makeSubject());
    });

    const inUnit = <T>(work: (scope: TransactionScope) => Promise<T>) => unitOfWork.run(work);
    const create = (roleNamed: string, permissions = [usersRead!]) =>
      inUnit(async (scope) => {
        const role = RoleEntity.create({ id: newId(), name: roleNamed, permissions, ...by() });
        await scope.roles.insert(role);
        return role.id;
      });
    const change = (id: string, edit: (role: RoleEntity) => void) =>
      inUnit(async (scope) => {
        const role = (await scope.roles.findForChange(id))!;
        edit(role);
        await scope.roles.update(role);
      });
    const holderOf = (roleId: string) =>
      User.createJoined({
        id: newId(),
        email: Email.parse(`${unique('holder')}@example.com`),
        name: 'Holder',
        username: Username.parse(unique('holder')),
        passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA',
        role: { id: roleId, name: 'held', permissions: [] },
        now: AT,
      });

    test('holds the built-in admin and member roles, member with no permission', async () => {
      const details = await roles.findAllDetails();
      expect(details.find((r) => r.id === SEEDED_ROLES.admin)).toMatchObject({ name: 'admin', builtIn: true, version: 1 });
      expect(details.find((r) => r.id === SEEDED_ROLES.member)).toMatchObject({ name: 'member', builtIn: true, version: 1, permissions: [] });
    });

    test('reads a created role back whole: in the details, by id, by its exact name and no other case', async () => {
      const named = roleName('persisted');
      const id = await create(named, [usersInvite!, usersRead!]);
      expect((await roles.findAllDetails()).find((r) => r.id === id)).toEqual({
        id, name: named, permissions: ['users:invite', 'users:read'], builtIn: false, version: 1, createdAt: AT,
      });
      expect(await roles.findById(id)).toMatchObject({ id, name: named, permissions: ['users:invite', 'users:read'] });
      expect(await roles.findByName(named)).toMatchObject({ id });
      expect(await roles.findByName(named.toUpperCase())).toBeNull();
      expect((await roles.findAll()).map((r) => r.id)).toContain(id);
      expect(await roles.findById(newId())).toBeNull();
    });

    test('lists the roles ordered by name', async () => {
      await create(roleName('zz'));
      await create(roleName('aa'));
      const names = (await roles.findAllDetails()).map((r) => r.name);
      expect(names).toEqual([...names].sort());
      expect(names).toHaveLength(4);
    });

    test('refuses a name taken in another case (RoleNameTakenError), on insert and on rename, and keeps both roles as they were', async () => {
      const taken = roleName('unique');
      const first = await create(taken);
      await expect(create(taken.toUpperCase())).rejects.toMatchObject({ code: 'ROLE_NAME_TAKEN' });
      const other = roleName('other');
      const second = await create(other);
      await expect(change(second, (role) => role.change({ name: taken.toUpperCase(), ...by() }))).rejects.toMatchObject({ code: 'ROLE_NAME_TAKEN' });
      expect((await roles.findAllDetails()).filter((r) => r.id === first || r.id === second).map((r) => r.name).sort()).toEqual([other, taken].sort());
    });

    test('updates name and permissions with the version; a change made from an older read is RoleChangedConcurrentlyError', async () => {
      const id = await create(roleName('versioned'));
      const stale = await inUnit(async (scope) => (await scope.roles.findForChange(id))!);
      const renamed = roleName('renamed');
      await change(id, (role) => role.change({ name: renamed, permissions: [usersInvite!], ...by() }));
      expect(await roles.findById(id)).toMatchObject({ name: renamed, permissions: ['users:invite'] });
      expect((await roles.findAllDetails()).find((r) => r.id === id)).toMatchObject({ version: 2, updatedAt: AT });
      stale.change({ name: roleName('lost'), ...by() });
      await expect(inUnit((scope) => scope.roles.update(stale))).rejects.toMatchObject({ code: 'ROLE_CHANGED_CONCURRENTLY' });
      expect(await roles.findById(id)).toMatchObject({ name: renamed });
    });

    test('refuses to delete a role a live user holds (RoleInUseError, nothing deleted); once the holder is erased, deletes it', async () => {
      const id = await create(roleName('deletable'));
      const holder = holderOf(id);
      await users.add(holder);
      const remove = () =>
        inUnit(async (scope) => {
          const role = (await scope.roles.findForChange(id))!;
          role.delete(by());
          await scope.roles.delete(role, SEEDED_ROLES.member);
        });
      await expect(remove()).rejects.toMatchObject({ code: 'ROLE_IN_USE' });
      expect(await roles.findById(id)).not.toBeNull();
      holder.delete(by());
      await users.erase(holder);
      await remove();
      expect(await roles.findById(id)).toBeNull();
      expect((await roles.findAllDetails()).some((r) => r.id === id)).toBe(false);
    });

    test('a transaction reads its own uncommitted role; a rolled back one leaves nothing behind', async () => {
      const named = roleName('rolledback');
      const seen = inUnit(async (scope) => {
        const role = RoleEntity.create({ id: newId(), name: named, permissions: [usersRead!], ...by() });
        await scope.roles.insert(role);
        expect(await scope.roles.findById(role.id)).toMatchObject({ name: named });
        expect(await scope.roles.findByName(named)).toMatchObject({ id: role.id });
        throw new Error('roll back');
      });
      await expect(seen).rejects.toThrow('roll back');
      expect(await roles.findByName(named)).toBeNull();
      expect(await create(named)).toEqual(expect.any(String));
    });
  });
}
