import type { UserRepository } from '../../src/application/ports/user-repository.port';
import type { UserListFilter } from '../../src/application/ports/user-repository.port';
import type { Role } from '../../src/domain/roles/role';
import { User, type UserStatus } from '../../src/domain/users/user';
import { EmailAlreadyTakenError, UserChangedConcurrentlyError, UserNotFoundError, UsernameAlreadyTakenError } from '../../src/domain/users/user.errors';
import { SEEDED_ROLES } from '../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { type ContractOptions, contractIt, join, joinedUser, type MakeStores, member, newId, pendingUser, unique } from './contract-kit';

const admin: Role = { id: SEEDED_ROLES.admin, name: 'admin', permissions: [] };

/** A user as stored, whatever its history: a username makes it joined. */
function person(o: { name?: string; username?: string; email?: string; role?: Role; status?: UserStatus } = {}): User {
  const at = new Date('2026-02-01T00:00:00.007Z');
  return User.restore({
    id: newId(),
    email: o.email ?? `${unique('person')}@example.com`,
    name: o.name,
    username: o.username,
    passwordHash: o.username === undefined ? undefined : 'h',
    roleId: (o.role ?? member).id,
    invitedAt: at,
    joinedAt: o.username === undefined ? undefined : at,
    tokenVersion: 0,
    status: o.status ?? (o.username === undefined ? 'pending' : 'active'),
    version: 1,
  });
}

/** What UserRepository promises (src/application/ports/user-repository.port.ts), on a store that starts empty. */
export function describeUserRepositoryContract(name: string, makeSubject: MakeStores<'users'>, options: ContractOptions = {}): void {
  const test = contractIt(options);

  describe(`${name} honours the UserRepository contract`, () => {
    let users: UserRepository;

    beforeEach(async () => {
      ({ users } = await makeSubject());
    });

    const snapshotOf = async (id: string) => (await users.findById(id))?.toSnapshot() ?? null;

    describe('add, then find', () => {
      test('finds a joined user by id as it was added: unicode and millisecond dates intact', async () => {
        const user = joinedUser();
        await users.add(user);
        const loaded = await users.findById(user.id);
        expect(loaded?.toSnapshot()).toEqual(user.toSnapshot());
        expect(loaded?.joinedAt?.toISOString()).toBe('2026-02-01T00:00:00.007Z');
        expect(loaded?.isJoined).toBe(true);
      });

      test('finds a pending user by id with its unknown fields empty and no pending events', async () => {
        const user = pendingUser();
        await users.add(user);
        const loaded = (await users.findById(user.id))!;
        expect(loaded.toSnapshot()).toEqual(user.toSnapshot());
        expect([loaded.username, loaded.passwordHash, loaded.joinedAt, loaded.isJoined]).toEqual([undefined, undefined, undefined, false]);
        expect(loaded.invitedAt.toISOString()).toBe('2026-01-31T12:00:00.123Z');
        expect(loaded.pullDomainEvents()).toEqual([]);
      });

      test('hands out a copy: changing a loaded user changes nothing stored until update', async () => {
        const user = pendingUser();
        await users.add(user);
        join((await users.findById(user.id))!, unique('unsaved'));
        expect(await snapshotOf(user.id)).toEqual(user.toSnapshot());
      });

      test('finds nothing for an unknown id, username or e-mail', async () => {
        await users.add(joinedUser());
        expect(await users.findById(pendingUser().id)).toBeNull();
        expect(await users.findByUsername('nobody-here')).toBeNull();
        expect(await users.existsWithEmail('nobody@example.com')).toBe(false);
        expect(await users.existsWithUsername('nobody-here')).toBe(false);
      });

      test('finds by username compared case-insensitively', async () => {
        const name = unique('MixedCase');
        const user = joinedUser(name);
        await users.add(user);
        expect((await users.findByUsername(name.toLowerCase()))?.id).toBe(user.id);
        expect((await users.findByUsername(name.toUpperCase()))?.id).toBe(user.id);
      });

      test('finds no one for a username with spaces after it: MariaDB and MySQL compare their keys padded', async () => {
        const name = unique('padded');
        await users.add(joinedUser(name));
        expect(await users.findByUsername(`${name} `)).toBeNull();
        expect(await users.findByUsername(`${name.toUpperCase()}${' '.repeat(200)}`)).toBeNull();
      });

      test('knows an e-mail of a pending or a joined user, compared case-insensitively', async () => {
        await users.add(pendingUser('Pending.Person@Example.COM'));
        await users.add(joinedUser(unique('joined'), 'Zoë.Ünïcode@Example.com'));
        expect(await users.existsWithEmail('pending.person@example.com')).toBe(true);
        expect(await users.existsWithEmail('PENDING.PERSON@EXAMPLE.COM')).toBe(true);
        expect(await users.existsWithEmail('zoë.ünïcode@example.com')).toBe(true);
        expect(await users.existsWithEmail('ZOË.ÜNÏCODE@EXAMPLE.COM')).toBe(true);
      });

      test('keeps an accented e-mail apart from the unaccented one (case, not accents, is ignored)', async () => {
        await users.add(pendingUser('josé@example.com'));
        expect(await users.existsWithEmail('jose@example.com')).toBe(false);
        await expect(users.add(pendingUser('jose@example.com'))).resolves.toBeUndefined();
      });

      test('knows a username by its normalized key, as the use cases ask', async () => {
        const name = unique('Taken.Name');
        await users.add(joinedUser(name));
        expect(await users.existsWithUsername(name)).toBe(true);
        expect(await users.existsWithUsername(name.toLowerCase())).toBe(true);
      });
    });

    describe('unique e-mail and username', () => {
      test('refuses a second user with the e-mail in another case: EmailAlreadyTakenError, and only the first is stored', async () => {
        const first = pendingUser('dup@example.com');
        await users.add(first);
        const second = pendingUser('DUP@Example.com');
        await expect(users.add(second)).rejects.toBeInstanceOf(EmailAlreadyTakenError);
        expect(await users.findById(second.id)).toBeNull();
        expect(await snapshotOf(first.id)).toEqual(first.toSnapshot());
      });

      test('refuses a joined user with the e-mail of a pending one: EmailAlreadyTakenError', async () => {
        await users.add(pendingUser('invited.first@example.com'));
        await expect(users.add(joinedUser(unique('late'), 'Invited.First@example.com'))).rejects.toBeInstanceOf(EmailAlreadyTakenError);
      });

      test('refuses a second user with the username in another case: UsernameAlreadyTakenError', async () => {
        const name = unique('taken_name');
        await users.add(joinedUser(name));
        const second = joinedUser(name.toUpperCase(), `${unique('other')}@example.com`);
        await expect(users.add(second)).rejects.toBeInstanceOf(UsernameAlreadyTakenError);
        expect(await users.findById(second.id)).toBeNull();
      });
    });

    describe('update', () => {
      test('saves a join: found by its new username, joined from then on', async () => {
        const user = pendingUser();
        await users.add(user);
        const loaded = (await users.findById(user.id))!;
        const name = unique('Joiner');
        join(loaded, name);
        await users.update(loaded);
        const saved = await users.findById(user.id);
        expect(saved?.toSnapshot()).toEqual(loaded.toSnapshot());
        expect(saved?.isJoined).toBe(true);
        expect((await users.findByUsername(name.toUpperCase()))?.id).toBe(user.id);
        expect(await users.existsWithUsername(name.toLowerCase())).toBe(true);
      });

      test('refuses a username taken in another case: UsernameAlreadyTakenError, the stored user unchanged', async () => {
        const holder = unique('Holder');
        await users.add(joinedUser(holder));
        const user = pendingUser();
        await users.add(user);
        const loaded = (await users.findById(user.id))!;
        join(loaded, holder.toUpperCase());
        await expect(users.update(loaded)).rejects.toBeInstanceOf(UsernameAlreadyTakenError);
        expect(await snapshotOf(user.id)).toEqual(user.toSnapshot());
      });

      test('saves a user again under its own username and e-mail without a conflict', async () => {
        const user = joinedUser();
        await users.add(user);
        const loaded = (await users.findById(user.id))!;
        await expect(users.update(loaded)).resolves.toBeUndefined();
        expect(await snapshotOf(user.id)).toEqual({ ...user.toSnapshot(), version: user.version + 1 });
      });

      test('never writes the token version: a copy loaded before a sign-out, saved after it, keeps the sign-out', async () => {
        const user = pendingUser();
        await users.add(user);
        const stale = (await users.findById(user.id))!;
        await users.incrementTokenVersion(user.id);
        join(stale, unique('after-signout'));
        await users.update(stale);
        const saved = (await users.findById(user.id))!;
        expect(saved.isJoined).toBe(true);
        expect(saved.tokenVersion).toBe(1);
      });
    });

    describe('delete', () => {
      test('removes the pending user: not found by id or e-mail, and the e-mail is free again', async () => {
        const user = pendingUser();
        await users.add(user);
        await users.delete(user);
        expect(await users.findById(user.id)).toBeNull();
        expect(await users.existsWithEmail(user.email)).toBe(false);
        await expect(users.add(pendingUser(user.email))).resolves.toBeUndefined();
      });

      test('removes only that user; an unknown or already deleted user is not found', async () => {
        const [gone, kept] = [pendingUser(), pendingUser()];
        await users.add(gone);
        await users.add(kept);
        const loaded = (await users.findById(gone.id))!;
        await users.delete(loaded);
        await expect(users.delete(loaded)).rejects.toBeInstanceOf(UserNotFoundError);
        await expect(users.delete(pendingUser())).rejects.toBeInstanceOf(UserNotFoundError);
        expect(await snapshotOf(kept.id)).toEqual(kept.toSnapshot());
        expect((await users.list({ offset: 0, limit: 10 })).total).toBe(1);
      });

      test('removes nothing that changed since it was read: a user who joined meanwhile stays (a revoke racing an accept)', async () => {
        const user = pendingUser();
        await users.add(user);
        const readByRevoke = (await users.findById(user.id))!;
        const accepting = (await users.findById(user.id))!;
        join(accepting, unique('joined-meanwhile'));
        await users.update(accepting);
        await expect(users.delete(readByRevoke)).rejects.toBeInstanceOf(UserChangedConcurrentlyError);
        expect((await users.findById(user.id))?.isJoined).toBe(true);
        expect((await users.list({ offset: 0, limit: 10 })).total).toBe(1);
      });

      test('removes an invitee that was deactivated: its invitation is withdrawn all the same', async () => {
        const user = pendingUser();
        await users.add(user);
        const loaded = (await users.findById(user.id))!;
        loaded.deactivate({ by: newId(), now: new Date('2026-03-01T00:00:00.000Z'), newId });
        await users.update(loaded);
        await users.delete((await users.findById(user.id))!);
        expect(await users.findById(user.id)).toBeNull();
        expect(await users.existsWithEmail(user.email)).toBe(false);
        expect((await users.list({ offset: 0, limit: 10 }, { status: 'deactivated' })).total).toBe(0);
      });

      test('removes no joined user, even at its current version', async () => {
        const user = joinedUser();
        await users.add(user);
        await expect(users.delete((await users.findById(user.id))!)).rejects.toBeInstanceOf(UserChangedConcurrentlyError);
        expect(await snapshotOf(user.id)).toEqual(user.toSnapshot());
      });
    });

    describe('incrementTokenVersion', () => {
      test('bumps the token version by one on each call, from 0', async () => {
        const user = joinedUser();
        await users.add(user);
        expect((await users.findById(user.id))?.tokenVersion).toBe(0);
        await users.incrementTokenVersion(user.id);
        expect((await users.findById(user.id))?.tokenVersion).toBe(1);
        await users.incrementTokenVersion(user.id);
        expect((await users.findById(user.id))?.tokenVersion).toBe(2);
      });

      test('loses no bump when sign-outs run concurrently, and touches no other user', async () => {
        const [user, other] = [joinedUser(), joinedUser()];
        await users.add(user);
        await users.add(other);
        await Promise.all(Array.from({ length: 5 }, () => users.incrementTokenVersion(user.id)));
        expect((await users.findById(user.id))?.tokenVersion).toBe(5);
        expect((await users.findById(other.id))?.tokenVersion).toBe(0);
      });
    });

    describe('list', () => {
      const idsOf = (items: User[]) => items.map((u) => u.id);

      test('gives no items and a total of 0 on an empty store', async () => {
        expect(await users.list({ offset: 0, limit: 10 })).toEqual({ items: [], total: 0 });
      });

      test('pages in creation order with the total of all users on every page', async () => {
        const added = Array.from({ length: 7 }, (_, i) => (i % 2 ? joinedUser() : pendingUser()));
        for (const user of added) await users.add(user);
        const pages = await Promise.all([0, 3, 6].map((offset) => users.list({ offset, limit: 3 })));
        expect(pages.map((p) => p.total)).toEqual([7, 7, 7]);
        expect(pages.map((p) => idsOf(p.items))).toEqual([idsOf(added.slice(0, 3)), idsOf(added.slice(3, 6)), idsOf(added.slice(6))]);
        expect(pages.flatMap((p) => p.items).map((u) => u.toSnapshot())).toEqual(added.map((u) => u.toSnapshot()));
        expect(await users.list({ offset: 7, limit: 3 })).toEqual({ items: [], total: 7 });
        expect(await users.list({ offset: 50, limit: 3 })).toEqual({ items: [], total: 7 });
      });

      test('keeps the total and the pages in step with adds and deletes', async () => {
        const added = [pendingUser(), pendingUser(), pendingUser()];
        expect((await users.list({ offset: 0, limit: 10 })).total).toBe(0);
        for (const user of added) await users.add(user);
        expect((await users.list({ offset: 0, limit: 10 })).total).toBe(3);
        await users.delete(added[1]!);
        const after = await users.list({ offset: 0, limit: 10 });
        expect(after.total).toBe(2);
        expect(idsOf(after.items)).toEqual([added[0]!.id, added[2]!.id]);
      });
    });

    describe('list, filtered', () => {
      const idsOf = (items: User[]) => items.map((u) => u.id);
      const addAll = async (...all: User[]) => {
        for (const user of all) await users.add(user);
        return all;
      };
      /** All the users the filter matches (one large page), by id, with the total. */
      const matched = async (filter: UserListFilter) => {
        const { items, total } = await users.list({ offset: 0, limit: 100 }, filter);
        return { ids: idsOf(items), total };
      };
      const only = (...all: User[]) => ({ ids: idsOf(all), total: all.length });

      test('by role and by status, alone and together, in id order with the matching total', async () => {
        const [a1, m1, a2, m2, m3] = await addAll(
          person({ role: admin, username: unique('a1') }),
          person({ status: 'pending' }),
          person({ role: admin, username: unique('a2'), status: 'deactivated' }),
          person({ username: unique('m2') }),
          person({ username: unique('m3'), status: 'deactivated' }),
        );
        expect(await matched({ roleId: admin.id })).toEqual(only(a1!, a2!));
        expect(await matched({ roleId: member.id })).toEqual(only(m1!, m2!, m3!));
        expect(await matched({ status: 'active' })).toEqual(only(a1!, m2!));
        expect(await matched({ status: 'pending' })).toEqual(only(m1!));
        expect(await matched({ status: 'deactivated' })).toEqual(only(a2!, m3!));
        expect(await matched({ roleId: admin.id, status: 'deactivated' })).toEqual(only(a2!));
        expect(await matched({ roleId: newId() })).toEqual({ ids: [], total: 0 });
      });

      test('by e-mail key: exactly one user, whatever case it was stored in; a part of an address finds nobody', async () => {
        const [mixed] = await addAll(person({ email: 'Mixed.Case@Example.COM' }), person({ email: 'mixed.case@example.co' }));
        expect(await matched({ emailKey: 'mixed.case@example.com' })).toEqual(only(mixed!));
        expect(await matched({ emailKey: 'mixed.case@example' })).toEqual({ ids: [], total: 0 });
        // Every later page is past the end and carries the first page's total, deep pages asked for at once too.
        const key = 'mixed.case@example.com';
        expect(await users.list({ offset: 1, limit: 1 }, { emailKey: key })).toEqual({ items: [], total: 1 });
        const deep = await Promise.all([10, 20, 99_990].map((offset) => users.list({ offset, limit: 10 }, { emailKey: key })));
        expect(deep).toEqual(Array(3).fill({ items: [], total: 1 }));
        expect(await users.list({ offset: 10, limit: 10 }, { emailKey: key, status: 'deactivated' })).toEqual({ items: [], total: 0 });
        expect(await users.list({ offset: 10, limit: 10 }, { emailKey: 'nobody@example.com' })).toEqual({ items: [], total: 0 });
      });

      test('by prefix of the name, the username or the e-mail, stored in any case; a user matched twice counts once', async () => {
        const [byName, byUsername, byEmail, byAll] = await addAll(
          person({ name: 'KIRA Lindqvist' }),
          person({ username: 'Kiran.Shah', name: 'Someone Else' }),
          person({ email: 'KIRK@example.com' }),
          person({ name: 'Kim', username: 'kim', email: 'kim@example.com' }),
          person({ name: 'Ekira', username: 'ekira', email: 'ekira@example.com' }),
        );
        expect(await matched({ prefix: 'ki' })).toEqual(only(byName!, byUsername!, byEmail!, byAll!));
        expect(await matched({ prefix: 'kira' })).toEqual(only(byName!, byUsername!));
        expect(await matched({ prefix: 'kira lindqvist' })).toEqual(only(byName!));
        expect(await matched({ prefix: 'kim@example.com' })).toEqual(only(byAll!));
        expect(await matched({ prefix: 'kira lindqvistx' })).toEqual({ ids: [], total: 0 });
      });

      test('by prefix, accents and every other character literally: "%" and "_" are no wildcards, "e" is not "é"', async () => {
        const [underscore, percent, accented, emoji, , abc] = await addAll(
          person({ email: 'a_b@example.com' }),
          person({ email: 'a%c@example.com' }),
          person({ name: 'Élodie Ümlaut' }),
          person({ name: 'Ab😀 Rocket' }),
          person({ email: 'axb@example.com' }),
          person({ email: 'abc@example.com', name: 'Elodie Umlaut' }),
        );
        expect(await matched({ prefix: 'a_' })).toEqual(only(underscore!));
        expect(await matched({ prefix: 'a%' })).toEqual(only(percent!));
        expect(await matched({ prefix: 'élodie ü' })).toEqual(only(accented!));
        // The character after the prefix lies beyond U+FFFF: still inside the range.
        expect(await matched({ prefix: 'ab' })).toEqual(only(emoji!, abc!));
        expect(await matched({ prefix: 'ab😀' })).toEqual(only(emoji!));
      });

      test('by prefix, a key equal to the prefix matches and a shorter one does not', async () => {
        const [exact, longer] = await addAll(person({ name: 'Seed User 1' }), person({ name: 'Seed User 10' }), person({ name: 'Seed User' }), person({ name: 'Seed User 2' }));
        expect(await matched({ prefix: 'seed user 1' })).toEqual(only(exact!, longer!));
      });

      test('every filter at once is an AND; pages of the match carry its total, past the end an empty page', async () => {
        const wanted = Array.from({ length: 5 }, (_, i) => person({ role: admin, username: unique(`Pat${i}`), name: `Pat ${i}` }));
        await addAll(
          wanted[0]!,
          person({ role: admin, username: unique('pat-off'), name: 'Pat Off', status: 'deactivated' }),
          wanted[1]!,
          person({ username: unique('pat-member'), name: 'Pat Member' }),
          wanted[2]!,
          person({ role: admin, username: unique('other'), name: 'Other' }),
          wanted[3]!,
          wanted[4]!,
        );
        const filter: UserListFilter = { roleId: admin.id, status: 'active', prefix: 'pat' };
        const pages = await Promise.all([0, 2, 4].map((offset) => users.list({ offset, limit: 2 }, filter)));
        expect(pages.map((p) => p.total)).toEqual([5, 5, 5]);
        expect(pages.map((p) => idsOf(p.items))).toEqual([idsOf(wanted.slice(0, 2)), idsOf(wanted.slice(2, 4)), idsOf(wanted.slice(4))]);
        expect(await users.list({ offset: 6, limit: 2 }, filter)).toEqual({ items: [], total: 5 });
        expect(await matched({ ...filter, emailKey: wanted[3]!.email.toLowerCase() })).toEqual(only(wanted[3]!));
        expect(await matched({ ...filter, emailKey: wanted[3]!.email.toLowerCase(), status: 'pending' })).toEqual({ ids: [], total: 0 });
      });

      test('the same list asked for many times at once: each answer as its own query would give, none older than a write before it', async () => {
        const [first, second] = await addAll(person({ name: 'Quinn One' }), person({ name: 'Quinn Two', role: admin, username: unique('quinn2') }));
        for (const filter of [{ prefix: 'quinn' }, { emailKey: first!.email.toLowerCase() }, { roleId: admin.id, prefix: 'quinn' }, { roleId: admin.id }]) {
          const alone = await matched(filter);
          expect(await Promise.all(Array.from({ length: 10 }, () => matched(filter)))).toEqual(Array(10).fill(alone));
        }
        const inFlight = Promise.all(Array.from({ length: 10 }, () => matched({ prefix: 'quinn' })));
        const [third] = await addAll(person({ name: 'Quinn Three' }));
        expect(await Promise.all(Array.from({ length: 10 }, () => matched({ prefix: 'quinn' })))).toEqual(Array(10).fill(only(first!, second!, third!)));
        await inFlight;
      });

      test('never lists or counts a deleted user, by any filter', async () => {
        const [gone, kept] = await addAll(person({ name: 'Gone Person', username: 'gone.person', email: 'gone@example.com' }), person({ name: 'Gone Too' }));
        const loaded = (await users.findById(gone!.id))!;
        loaded.delete({ by: newId(), now: new Date('2026-04-01T08:00:00.001Z'), newId });
        await users.erase(loaded);
        expect(await matched({ roleId: member.id })).toEqual(only(kept!));
        expect(await matched({ status: 'active' })).toEqual({ ids: [], total: 0 });
        expect(await matched({ prefix: 'gone' })).toEqual(only(kept!));
        expect(await matched({ emailKey: 'gone@example.com' })).toEqual({ ids: [], total: 0 });
      });
    });
  });
}
