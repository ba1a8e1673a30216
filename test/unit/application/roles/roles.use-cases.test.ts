import { auditRecorderFor } from '../../../support/fakes/audit-recorder';
import { CreateRoleUseCase } from '../../../../src/application/roles/create-role.use-case';
import { DeleteRoleUseCase } from '../../../../src/application/roles/delete-role.use-case';
import { GetRoleUseCase } from '../../../../src/application/roles/get-role.use-case';
import { ListRolesUseCase } from '../../../../src/application/roles/list-roles.use-case';
import { UpdateRoleUseCase } from '../../../../src/application/roles/update-role.use-case';
import { Permissions } from '../../../../src/domain/permissions/permission';
import { FixedClock } from '../../../support/fakes/fixed-clock';
import { InMemoryOutbox } from '../../../support/fakes/in-memory-outbox';
import { InMemoryPermissionRepository } from '../../../support/fakes/in-memory-permission.repository';
import { InMemoryRoleRepository } from '../../../support/fakes/in-memory-role.repository';
import { InMemoryUnitOfWork } from '../../../support/fakes/in-memory-unit-of-work';
import { InMemoryUserRepository } from '../../../support/fakes/in-memory-user.repository';
import { SequentialIdGenerator } from '../../../support/fakes/sequential-id-generator';
import { ActorMother } from '../../../support/mothers/actor.mother';
import { ADMIN_ROLE_ID, MEMBER_ROLE_ID, RoleMother } from '../../../support/mothers/role.mother';
import { UserMother } from '../../../support/mothers/user.mother';

const catalogue = Object.values(Permissions).map((name) => ({ id: `id-${name}`, group: name.split(':')[0]!, name }));

function world() {
  const clock = new FixedClock();
  const users = new InMemoryUserRepository();
  const outbox = new InMemoryOutbox();
  const roles = new InMemoryRoleRepository([RoleMother.admin(), RoleMother.member()]);
  // Every closure runs twice (a deadlock retry): the use cases must be correct then.
  const unitOfWork = new InMemoryUnitOfWork({ users, outbox, roles, retryEveryRun: true });
  const deps = {
    auditRecorder: auditRecorderFor({ clock, auditTrail: unitOfWork.audit }).auditRecorder,
    roleRepository: roles,
    permissionRepository: new InMemoryPermissionRepository(catalogue),
    unitOfWork,
    clock,
    idGenerator: new SequentialIdGenerator(0x70),
  };
  const admin = ActorMother.admin();
  return {
    clock, users, outbox, roles, admin, audit: unitOfWork.audit,
    list: new ListRolesUseCase(deps),
    get: new GetRoleUseCase(deps),
    create: new CreateRoleUseCase(deps),
    update: new UpdateRoleUseCase(deps),
    remove: new DeleteRoleUseCase(deps),
  };
}

describe('role administration use cases', () => {
  it('creates a role from permission names or ids, records RoleCreated keyed by the role, and lists it', async () => {
    const w = world();
    const { role, version } = await w.create.execute({ actor: w.admin, name: 'Auditor', permissions: ['users:read', 'id-roles:read', 'users:read'] });
    expect(role).toMatchObject({ name: 'Auditor', permissions: ['roles:read', 'users:read'], built_in: false });
    expect(version).toBe(1);
    expect(w.outbox.events.map((e) => [e.type, e.aggregateId])).toEqual([['RoleCreated', role._id]]);
    expect(w.outbox.events[0]!.data).toEqual({
      role_id: role._id, name: 'Auditor', permissions: ['roles:read', 'users:read'], created_by: w.admin.userId, created_date: w.clock.now().toISOString(),
    });
    const listed = await w.list.execute({ actor: w.admin, page: 1, pageSize: 2 });
    expect(listed.roles.map((r) => r.name)).toEqual(['Auditor', 'admin']);
    expect(listed.pagination).toEqual({ page: 1, page_size: 2, page_count: 2, total_document: 3 });
  });

  it('refuses an unknown permission, naming it, and writes nothing', async () => {
    const w = world();
    await expect(w.create.execute({ actor: w.admin, name: 'x', permissions: ['users:read', 'users:fly'] })).rejects.toMatchObject({
      code: 'PERMISSION_NOT_FOUND',
      message: expect.stringContaining('"users:fly"'),
    });
    expect(w.outbox.events).toHaveLength(0);
  });

  it('refuses a duplicate name case-insensitively, and an invalid name', async () => {
    const w = world();
    await expect(w.create.execute({ actor: w.admin, name: 'ADMIN', permissions: [] })).rejects.toMatchObject({ code: 'ROLE_NAME_TAKEN' });
    await expect(w.create.execute({ actor: w.admin, name: '1abc', permissions: [] })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('lets nobody grant a permission they lack, nor act without roles:write / roles:read', async () => {
    const w = world();
    const writer = ActorMother.withPermissions([Permissions.rolesWrite, Permissions.usersRead]);
    await expect(w.create.execute({ actor: writer, name: 'x', permissions: ['users:invite'] })).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    await expect(w.create.execute({ actor: ActorMother.withPermissions(['users:read']), name: 'x', permissions: [] })).rejects.toMatchObject({
      code: 'PERMISSION_DENIED',
    });
    await expect(w.list.execute({ actor: writer, page: 1, pageSize: 10 })).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    // Nor edit a role holding more than they do.
    await expect(w.update.execute({ actor: writer, roleId: MEMBER_ROLE_ID, name: 'x' })).rejects.toMatchObject({ code: 'BUILT_IN_ROLE' });
    const { role } = await w.create.execute({ actor: w.admin, name: 'inviter', permissions: ['users:invite'] });
    await expect(w.update.execute({ actor: writer, roleId: role._id, permissions: [] })).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    await expect(w.remove.execute({ actor: writer, roleId: role._id })).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
  });

  it('changes name and permissions, records RoleChanged with what changed, and honours the expected version', async () => {
    const w = world();
    const { role } = await w.create.execute({ actor: w.admin, name: 'auditor', permissions: ['users:read'] });
    await expect(w.update.execute({ actor: w.admin, roleId: role._id, expectedVersion: 2, name: 'x' })).rejects.toMatchObject({
      code: 'ROLE_CHANGED_CONCURRENTLY',
    });
    const changed = await w.update.execute({ actor: w.admin, roleId: role._id, expectedVersion: 1, name: 'auditors', permissions: ['permissions:read'] });
    expect(changed).toMatchObject({ version: 2, role: { name: 'auditors', permissions: ['permissions:read'], updated_by: w.admin.userId } });
    expect(w.outbox.events.at(-1)).toMatchObject({
      type: 'RoleChanged',
      aggregateId: role._id,
      data: { changes: { name: 'auditors', permissions: ['permissions:read'] }, previous: { name: 'auditor', permissions: ['users:read'] } },
    });
    // The same values again change nothing and record nothing.
    const events = w.outbox.events.length;
    await expect(w.update.execute({ actor: w.admin, roleId: role._id, name: 'auditors', permissions: ['permissions:read'] })).resolves.toMatchObject({ version: 2 });
    expect(w.outbox.events).toHaveLength(events);
    await expect(w.get.execute({ actor: w.admin, roleId: role._id })).resolves.toMatchObject({ version: 2, role: { name: 'auditors' } });
  });

  it('keeps built-in roles: admin never loses a permission, neither is renamed or deleted; member’s permissions may change', async () => {
    const w = world();
    await expect(w.update.execute({ actor: w.admin, roleId: ADMIN_ROLE_ID, permissions: ['users:read'] })).rejects.toMatchObject({ code: 'BUILT_IN_ROLE' });
    await expect(w.update.execute({ actor: w.admin, roleId: ADMIN_ROLE_ID, name: 'root' })).rejects.toMatchObject({ code: 'BUILT_IN_ROLE' });
    await expect(w.remove.execute({ actor: w.admin, roleId: MEMBER_ROLE_ID })).rejects.toMatchObject({ code: 'BUILT_IN_ROLE' });
    await expect(w.update.execute({ actor: w.admin, roleId: MEMBER_ROLE_ID, permissions: ['users:read'] })).resolves.toMatchObject({
      role: { permissions: ['users:read'] },
    });
  });

  it('deletes a role nobody holds (RoleDeleted), and refuses one a user holds; unknown ids are NO_SUCH_ROLE', async () => {
    const w = world();
    const { role: held } = await w.create.execute({ actor: w.admin, name: 'held', permissions: [] });
    const { role: free } = await w.create.execute({ actor: w.admin, name: 'free', permissions: [] });
    w.users.seed(UserMother.pending({ email: 'p@example.com', role: { id: held._id, name: 'held', permissions: [] } }));
    await expect(w.remove.execute({ actor: w.admin, roleId: held._id })).rejects.toMatchObject({ code: 'ROLE_IN_USE' });
    await w.remove.execute({ actor: w.admin, roleId: free._id });
    expect(w.outbox.events.at(-1)).toMatchObject({ type: 'RoleDeleted', aggregateId: free._id, data: { role_id: free._id, name: 'free' } });
    await expect(w.get.execute({ actor: w.admin, roleId: free._id })).rejects.toMatchObject({ code: 'NO_SUCH_ROLE' });
    await expect(w.remove.execute({ actor: w.admin, roleId: free._id })).rejects.toMatchObject({ code: 'NO_SUCH_ROLE' });
    await expect(w.update.execute({ actor: w.admin, roleId: 'nope', name: 'x' })).rejects.toMatchObject({ code: 'NO_SUCH_ROLE' });
  });
});
