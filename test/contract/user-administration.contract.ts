import type { ContractStores } from './contract-kit';
import { User } from '../../src/domain/users/user';
import {
  EmailAlreadyTakenError,
  UserChangedConcurrentlyError,
  UserNotFoundError,
} from '../../src/domain/users/user.errors';
import { SEEDED_ROLES } from '../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { type ContractOptions, contractIt, invitationFor, joinedUser, type MakeStores, member, newId, pendingUser, unique } from './contract-kit';

const admin = { id: SEEDED_ROLES.admin, name: 'admin', permissions: [] };
const AT = new Date('2026-04-01T08:00:00.001Z');
const change = () => ({ by: newId(), now: AT, newId });

/** A joined user holding the admin role. */
function joinedAdmin(): User {
  return User.restore({ ...joinedUser().toSnapshot(), roleId: admin.id });
}

/**
 * What UserRepository promises for user administration (versioned saves, erasure, cascades, the
 * active-holder count), through the plain stores and through units of work.
 */
export function describeUserAdministrationContract(name: string, makeSubject: MakeStores, options: ContractOptions = {}): void {
  const test = contractIt(options);

  describe(`${name} honours the UserRepository contract for user administration`, () => {
    let stores: ContractStores;

    beforeEach(async () => {
      stores = await makeSubject();
    });

    const load = async (id: string) => (await stores.users.findById(id))!;

    describe('versioned update', () => {
      test('stores the status and moves the version on by one, in the store and on the saved object', async () => {
        const user = joinedUser();
        await stores.users.add(user);
        const loaded = await load(user.id);
        expect([loaded.status, loaded.version]).toEqual(['active', 1]);

        loaded.deactivate(change());
        await stores.users.update(loaded);

        expect(loaded.version).toBe(2);
        const saved = await load(user.id);
        expect([saved.status, saved.version, saved.updatedAt?.toISOString()]).toEqual(['deactivated', 2, AT.toISOString()]);
        expect(saved.toSnapshot()).toEqual(loaded.toSnapshot());
      });

      test('refuses a save from a version another save moved on from: UserChangedConcurrentlyError, the winner kept', async () => {
        const user = joinedUser();
        await stores.users.add(user);
        const [first, second] = [await load(user.id), await load(user.id)];
        first.update({ ...change(), name: 'First', previousRole: member });
        second.update({ ...change(), name: 'Second', previousRole: member });

        await stores.users.update(first);
        await expect(stores.users.update(second)).rejects.toBeInstanceOf(UserChangedConcurrentlyError);

        expect((await load(user.id)).name).toBe('First');
      });

      test('lets exactly one of two concurrent units of work saving the same version commit', async () => {
        const user = joinedUser();
        await stores.users.add(user);
        const rename = (name: string) =>
          stores.unitOfWork.run(async ({ users }) => {
            const loaded = (await users.findById(user.id))!;
            loaded.update({ ...change(), name, previousRole: member });
            await users.update(loaded);
          });

        const outcomes = await Promise.allSettled([rename('A'), rename('B')]);

        // On SQLite the runs take turns, so the second reads the first's save and both commit; elsewhere they overlap.
        const rejected = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
        for (const failure of rejected) expect(failure.reason).toBeInstanceOf(UserChangedConcurrentlyError);
        expect((await load(user.id)).version).toBe(1 + outcomes.length - rejected.length);
      });

      test('refuses an e-mail another user has (any case): EmailAlreadyTakenError, nothing written', async () => {
        const holder = pendingUser(`${unique('holder')}@example.com`);
        const user = joinedUser();
        await stores.users.add(holder);
        await stores.users.add(user);
        const loaded = User.restore({ ...(await load(user.id)).toSnapshot(), email: holder.email.toUpperCase() });

        await expect(stores.users.update(loaded)).rejects.toBeInstanceOf(EmailAlreadyTakenError);
        expect((await load(user.id)).email).toBe(user.email);
      });

      test('refuses the update of a user that does not exist: UserNotFoundError', async () => {
        await expect(stores.users.update(joinedUser())).rejects.toBeInstanceOf(UserNotFoundError);
        expect((await stores.users.list({ offset: 0, limit: 10 })).total).toBe(0);
      });
    });

    describe('erase', () => {
      test('forgets the person: no read finds it, its e-mail and username are free, it is not listed or counted', async () => {
        const username = unique('Erased');
        const user = joinedUser(username);
        const kept = pendingUser();
        await stores.users.add(user);
        await stores.users.add(kept);
        const loaded = await load(user.id);
        loaded.delete(change());

        await stores.users.erase(loaded);

        expect(await stores.users.findById(user.id)).toBeNull();
        expect(await stores.users.findByUsername(username)).toBeNull();
        expect(await stores.users.existsWithEmail(user.email)).toBe(false);
        expect(await stores.users.existsWithUsername(username)).toBe(false);
        expect(await stores.users.list({ offset: 0, limit: 10 })).toEqual({ items: [(await load(kept.id))], total: 1 });
        await expect(stores.users.add(joinedUser(username.toUpperCase(), user.email.toUpperCase()))).resolves.toBeUndefined();
        expect((await stores.users.list({ offset: 0, limit: 10 })).total).toBe(2);
      });

      test('keeps the id taken: a new user with that id is refused', async () => {
        const user = pendingUser();
        await stores.users.add(user);
        const loaded = await load(user.id);
        loaded.delete(change());
        await stores.users.erase(loaded);

        const again = User.restore({ ...pendingUser().toSnapshot(), id: user.id });
        await expect(stores.users.add(again)).rejects.toThrow();
      });

      test("deletes the user's invitation with it, and no other", async () => {
        const [user, other] = [pendingUser(), pendingUser()];
        await stores.users.add(user);
        await stores.users.add(other);
        const [mine, theirs] = [invitationFor(user.id), invitationFor(other.id)];
        await stores.invitations.replaceForUser(mine);
        await stores.invitations.replaceForUser(theirs);
        const loaded = await load(user.id);
        loaded.delete(change());

        await stores.unitOfWork.run(({ users }) => users.erase(loaded));

        expect(await stores.invitations.findByTokenHash(mine.tokenHash)).toBeNull();
        expect((await stores.invitations.findByTokenHash(theirs.tokenHash))?.userId).toBe(other.id);
      });

      test('is versioned as update is: erasing from a stale read is refused, the user stays', async () => {
        const user = joinedUser();
        await stores.users.add(user);
        const [stale, fresh] = [await load(user.id), await load(user.id)];
        fresh.update({ ...change(), name: 'Renamed', previousRole: member });
        await stores.users.update(fresh);
        stale.delete(change());

        await expect(stores.users.erase(stale)).rejects.toBeInstanceOf(UserChangedConcurrentlyError);
        expect((await load(user.id)).name).toBe('Renamed');
      });
    });

    describe('delete', () => {
      test("deletes the user's invitation with it (the foreign key's cascade), in or outside a unit of work", async () => {
        const [first, second] = [pendingUser(), pendingUser()];
        for (const user of [first, second]) {
          await stores.users.add(user);
          await stores.invitations.replaceForUser(invitationFor(user.id, { tokenHash: user.id.replace(/-/g, '').padEnd(64, 'a') }));
        }

        await stores.users.delete(first);
        await stores.unitOfWork.run(({ users }) => users.delete(second));

        for (const user of [first, second]) {
          expect(await stores.invitations.findByTokenHash(user.id.replace(/-/g, '').padEnd(64, 'a'))).toBeNull();
        }
      });
    });

    describe('countActiveWithRole', () => {
      test('counts the active holders of the role, leaving out the one named, pending and deactivated ones', async () => {
        const [a, b, c] = [joinedAdmin(), joinedAdmin(), joinedAdmin()];
        const invitee = User.restore({ ...pendingUser().toSnapshot(), roleId: admin.id });
        for (const user of [a, b, c, invitee, joinedUser()]) await stores.users.add(user);
        const locked = await load(c.id);
        locked.deactivate(change());
        await stores.users.update(locked);

        const counts = await stores.unitOfWork.run(async ({ users }) => [
          await users.countActiveWithRole(admin.id),
          await users.countActiveWithRole(admin.id, a.id),
          await users.countActiveWithRole(member.id),
        ]);
        expect(counts).toEqual([2, 1, 1]);
      });

      test('makes a second unit of work counting the same role wait until the first ends, then count what it committed', async () => {
        const [a, b] = [joinedAdmin(), joinedAdmin()];
        await stores.users.add(a);
        await stores.users.add(b);
        const order: string[] = [];
        let release!: () => void;
        const gate = new Promise<void>((resolve) => (release = resolve));
        let counted!: () => void;
        const firstCounted = new Promise<void>((resolve) => (counted = resolve));

        const first = stores.unitOfWork.run(async ({ users }) => {
          const others = await users.countActiveWithRole(admin.id, b.id);
          counted();
          await gate;
          const target = (await users.findById(b.id))!;
          target.deactivate(change());
          await users.update(target);
          order.push('first commits');
          return others;
        });
        await firstCounted;
        const second = stores.unitOfWork.run(async ({ users }) => {
          const others = await users.countActiveWithRole(admin.id, a.id);
          order.push('second counted');
          return others;
        });
        await new Promise((resolve) => setTimeout(resolve, 100));
        release();

        expect([await first, await second]).toEqual([1, 0]);
        expect(order).toEqual(['first commits', 'second counted']);
      });
    });
  });
}
