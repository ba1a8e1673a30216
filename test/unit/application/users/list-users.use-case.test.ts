import { Permissions } from '../../../../src/domain/permissions/permission';
import { PermissionDeniedError } from '../../../../src/domain/permissions/permission-denied.error';
import type { User } from '../../../../src/domain/users/user';
import { fakeHashOf } from '../../../support/fakes/fake-password-hasher';
import { ActorMother } from '../../../support/mothers/actor.mother';
import { RoleMother } from '../../../support/mothers/role.mother';
import { listUsersOverFakes } from './list-users.fixture';
import { DEFAULT_PASSWORD, UserMother } from '../../../support/mothers/user.mother';

const reader = ActorMother.withPermissions([Permissions.usersRead]);

function setup() {
  const { users, roles, listUsers, ids } = listUsersOverFakes();
  /** `count` joined users, created (and so ordered) one after the other. */
  const seedUsers = (count: number): User[] => {
    const created = Array.from({ length: count }, () => UserMother.joined({ id: ids.next() }));
    users.seed(...created);
    return created;
  };
  return { listUsers, users, roles, ids, seedUsers };
}

describe('ListUsersUseCase', () => {
  describe('permission', () => {
    it.each([
      ['no permissions', ActorMother.withoutPermissions()],
      ['every permission but users:read', ActorMother.withPermissions([Permissions.usersInvite, Permissions.permissionsRead])],
    ])('refuses an actor with %s, naming users:read as missing', async (_label, actor) => {
      const { listUsers, seedUsers } = setup();
      seedUsers(2);

      const failure = listUsers.execute({ actor, page: 1, pageSize: 10 });

      await expect(failure).rejects.toBeInstanceOf(PermissionDeniedError);
      await expect(failure).rejects.toMatchObject({ code: 'PERMISSION_DENIED', missing: [Permissions.usersRead] });
    });

    it('serves an actor holding only users:read', async () => {
      const { listUsers, seedUsers } = setup();
      seedUsers(2);

      const result = await listUsers.execute({ actor: reader, page: 1, pageSize: 10 });

      expect(result.users).toHaveLength(2);
    });
  });

  describe('pagination', () => {
    it('reports page_count = ceil(total / page_size) and fills the last page with the remainder', async () => {
      const { listUsers, seedUsers } = setup();
      const created = seedUsers(25);

      const first = await listUsers.execute({ actor: reader, page: 1, pageSize: 10 });
      const last = await listUsers.execute({ actor: reader, page: 3, pageSize: 10 });

      expect(first.pagination).toEqual({ page: 1, page_size: 10, page_count: 3, total_document: 25 });
      expect(first.users.map((u) => u._id)).toEqual(created.slice(0, 10).map((u) => u.id));
      expect(last.pagination).toEqual({ page: 3, page_size: 10, page_count: 3, total_document: 25 });
      expect(last.users.map((u) => u._id)).toEqual(created.slice(20).map((u) => u.id));
    });

    it('answers a page past the end with no users and the true counts', async () => {
      const { listUsers, seedUsers } = setup();
      seedUsers(25);

      const result = await listUsers.execute({ actor: reader, page: 4, pageSize: 10 });

      expect(result.users).toEqual([]);
      expect(result.pagination).toEqual({ page: 4, page_size: 10, page_count: 3, total_document: 25 });
    });

    it('does not count an extra page when the total is an exact multiple of page_size', async () => {
      const { listUsers, seedUsers } = setup();
      seedUsers(20);

      const second = await listUsers.execute({ actor: reader, page: 2, pageSize: 10 });
      const third = await listUsers.execute({ actor: reader, page: 3, pageSize: 10 });

      expect(second.users).toHaveLength(10);
      expect(second.pagination).toEqual({ page: 2, page_size: 10, page_count: 2, total_document: 20 });
      expect(third.users).toEqual([]);
      expect(third.pagination.page_count).toBe(2);
    });

    it('reports zero pages and zero documents when there is nobody', async () => {
      const { listUsers } = setup();

      const result = await listUsers.execute({ actor: reader, page: 1, pageSize: 10 });

      expect(result).toEqual({ users: [], pagination: { page: 1, page_size: 10, page_count: 0, total_document: 0 } });
    });

    it('honours page sizes other than the default (1 and 100)', async () => {
      const { listUsers, seedUsers } = setup();
      const created = seedUsers(7);

      const one = await listUsers.execute({ actor: reader, page: 7, pageSize: 1 });
      const hundred = await listUsers.execute({ actor: reader, page: 1, pageSize: 100 });

      expect(one.users.map((u) => u._id)).toEqual([created[6].id]);
      expect(one.pagination).toEqual({ page: 7, page_size: 1, page_count: 7, total_document: 7 });
      expect(hundred.users).toHaveLength(7);
      expect(hundred.pagination.page_count).toBe(1);
    });

    it('keeps a stable creation order, so walking the pages yields every user exactly once', async () => {
      const { listUsers, users, ids } = setup();
      const created = Array.from({ length: 11 }, (_, i) =>
        i % 3 === 0 ? UserMother.pending({ id: ids.next() }) : UserMother.joined({ id: ids.next() }),
      );
      // Stored out of order: the listing must not depend on insertion order.
      users.seed(...[...created].reverse());

      const seen: string[] = [];
      for (let page = 1; page <= 3; page++) {
        const result = await listUsers.execute({ actor: reader, page, pageSize: 4 });
        seen.push(...result.users.map((u) => u._id));
      }
      const again = await listUsers.execute({ actor: reader, page: 2, pageSize: 4 });

      expect(seen).toEqual(created.map((u) => u.id));
      expect(again.users.map((u) => u._id)).toEqual(seen.slice(4, 8));
    });
  });

  describe('the user view', () => {
    it('shows a joined user with every known field and its role with _id, name and permissions', async () => {
      const { listUsers, users, ids } = setup();
      const inviter = ids.next();
      const ada = UserMother.joined({
        id: ids.next(),
        name: 'Ada Lovelace',
        username: 'ada',
        email: 'Ada@Example.com',
        role: RoleMother.admin(),
        invitedBy: inviter,
        invitedAt: new Date('2026-01-02T03:04:05.678Z'),
        joinedAt: new Date('2026-01-03T00:00:00.001Z'),
      });
      users.seed(ada);

      const { users: views } = await listUsers.execute({ actor: reader, page: 1, pageSize: 10 });

      expect(views).toEqual([
        {
          _id: ada.id,
          name: 'Ada Lovelace',
          email: 'Ada@Example.com',
          username: 'ada',
          role: { _id: RoleMother.admin().id, name: 'admin', permissions: RoleMother.admin().permissions },
          invited_date: '2026-01-02T03:04:05.678Z',
          invited_by: inviter,
          joined_date: '2026-01-03T00:00:00.001Z',
        },
      ]);
    });

    it('leaves out the name, username and joined_date of a pending user instead of sending null', async () => {
      const { listUsers, users, ids } = setup();
      const inviter = ids.next();
      const pending = UserMother.pending({
        id: ids.next(),
        email: 'invitee@example.com',
        invitedBy: inviter,
        invitedAt: new Date('2026-01-30T10:00:00.000Z'),
      });
      users.seed(pending);

      const [view] = (await listUsers.execute({ actor: reader, page: 1, pageSize: 10 })).users;

      expect(view).not.toHaveProperty('name');
      expect(view).not.toHaveProperty('username');
      expect(view).not.toHaveProperty('joined_date');
      expect(view).toEqual({
        _id: pending.id,
        email: 'invitee@example.com',
        role: { _id: RoleMother.member().id, name: 'member', permissions: [] },
        invited_date: '2026-01-30T10:00:00.000Z',
        invited_by: inviter,
      });
    });

    it('never shows a password or its hash', async () => {
      const { listUsers, users } = setup();
      users.seed(UserMother.joined({ role: RoleMother.admin() }), UserMother.joined(), UserMother.pending());

      const result = await listUsers.execute({ actor: reader, page: 1, pageSize: 10 });

      const body = JSON.stringify(result);
      expect(result.users).toHaveLength(3);
      expect(body).not.toContain(fakeHashOf(DEFAULT_PASSWORD));
      expect(body).not.toContain(DEFAULT_PASSWORD);
      for (const view of result.users) {
        expect(Object.keys(view)).not.toEqual(expect.arrayContaining(['password']));
        expect(Object.keys(view)).not.toEqual(expect.arrayContaining(['passwordHash']));
      }
    });
  });
});
