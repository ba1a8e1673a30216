import { ListPermissionsUseCase } from '../../../../src/application/permissions/list-permissions.use-case';
import { Permissions } from '../../../../src/domain/permissions/permission';
import { PermissionDeniedError } from '../../../../src/domain/permissions/permission-denied.error';
import { InMemoryPermissionRepository } from '../../../support/fakes/in-memory-permission.repository';
import { ActorMother } from '../../../support/mothers/actor.mother';
import { PermissionMother } from '../../../support/mothers/permission.mother';

const reader = ActorMother.withPermissions([Permissions.permissionsRead]);

function setup() {
  const permissions = [
    ...PermissionMother.seeded(),
    PermissionMother.create('reports:export'),
    PermissionMother.create('reports:read'),
    PermissionMother.create('audit:read'),
  ];
  const listPermissions = new ListPermissionsUseCase({ permissionRepository: new InMemoryPermissionRepository(permissions) });
  const byName = (name: string) => {
    const p = permissions.find((x) => x.name === name)!;
    return { _id: p.id, group: p.group, name: p.name };
  };
  return { listPermissions, byName };
}

describe('ListPermissionsUseCase', () => {
  it.each([
    ['no permissions', ActorMother.withoutPermissions()],
    ['users:read and users:invite only', ActorMother.withPermissions([Permissions.usersRead, Permissions.usersInvite])],
  ])('refuses an actor with %s, naming permissions:read as missing', async (_label, actor) => {
    const { listPermissions } = setup();

    const failure = listPermissions.execute({ actor, filter: {}, page: 1, pageSize: 10 });

    await expect(failure).rejects.toBeInstanceOf(PermissionDeniedError);
    await expect(failure).rejects.toMatchObject({ missing: [Permissions.permissionsRead] });
  });

  it('lists every permission as {_id, group, name}, ordered by group then name', async () => {
    const { listPermissions, byName } = setup();

    const result = await listPermissions.execute({ actor: reader, filter: {}, page: 1, pageSize: 10 });

    expect(result.permissions).toEqual(
      ['audit:read', 'permissions:read', 'reports:export', 'reports:read', 'users:invite', 'users:read'].map(byName),
    );
    expect(result.pagination).toEqual({ page: 1, page_size: 10, page_count: 1, total_document: 6 });
  });

  it('filters by group, counting only the matches', async () => {
    const { listPermissions, byName } = setup();

    const result = await listPermissions.execute({ actor: reader, filter: { group: 'users' }, page: 1, pageSize: 10 });

    expect(result.permissions).toEqual(['users:invite', 'users:read'].map(byName));
    expect(result.pagination).toEqual({ page: 1, page_size: 10, page_count: 1, total_document: 2 });
  });

  it('filters by name', async () => {
    const { listPermissions, byName } = setup();

    const result = await listPermissions.execute({ actor: reader, filter: { name: 'users:read' }, page: 1, pageSize: 10 });

    expect(result.permissions).toEqual([byName('users:read')]);
    expect(result.pagination.total_document).toBe(1);
  });

  it('applies group and name together', async () => {
    const { listPermissions, byName } = setup();

    const both = await listPermissions.execute({
      actor: reader,
      filter: { group: 'reports', name: 'reports:read' },
      page: 1,
      pageSize: 10,
    });
    const contradictory = await listPermissions.execute({
      actor: reader,
      filter: { group: 'users', name: 'reports:read' },
      page: 1,
      pageSize: 10,
    });

    expect(both.permissions).toEqual([byName('reports:read')]);
    expect(contradictory).toEqual({ permissions: [], pagination: { page: 1, page_size: 10, page_count: 0, total_document: 0 } });
  });

  it.each([{ group: 'user' }, { group: 'USERS' }, { name: 'users' }, { name: 'Users:Read' }])(
    'matches filters exactly, not by prefix or case (%j)',
    async (filter) => {
      const { listPermissions } = setup();

      const result = await listPermissions.execute({ actor: reader, filter, page: 1, pageSize: 10 });

      expect(result.permissions).toEqual([]);
      expect(result.pagination.total_document).toBe(0);
    },
  );

  it('pages through the list with page_count = ceil(total / page_size) and true counts past the end', async () => {
    const { listPermissions, byName } = setup();
    const page = (n: number) => listPermissions.execute({ actor: reader, filter: {}, page: n, pageSize: 4 });

    const [first, second, third] = await Promise.all([page(1), page(2), page(3)]);

    expect(first.permissions).toEqual(['audit:read', 'permissions:read', 'reports:export', 'reports:read'].map(byName));
    expect(second.permissions).toEqual(['users:invite', 'users:read'].map(byName));
    expect(third.permissions).toEqual([]);
    expect([first, second, third].map((r) => r.pagination)).toEqual([
      { page: 1, page_size: 4, page_count: 2, total_document: 6 },
      { page: 2, page_size: 4, page_count: 2, total_document: 6 },
      { page: 3, page_size: 4, page_count: 2, total_document: 6 },
    ]);
  });

  it('pages a filtered list by the filtered total', async () => {
    const { listPermissions, byName } = setup();

    const result = await listPermissions.execute({ actor: reader, filter: { group: 'reports' }, page: 2, pageSize: 1 });

    expect(result.permissions).toEqual([byName('reports:read')]);
    expect(result.pagination).toEqual({ page: 2, page_size: 1, page_count: 2, total_document: 2 });
  });
});
