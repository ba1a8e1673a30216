import { GetUserUseCase } from '../../../../src/application/users/get-user.use-case';
import { UpdateUserUseCase } from '../../../../src/application/users/update-user.use-case';
import { Permissions } from '../../../../src/domain/permissions/permission';
import { PermissionDeniedError } from '../../../../src/domain/permissions/permission-denied.error';
import { RoleNotFoundError } from '../../../../src/domain/roles/role-not-found.error';
import { ValidationError } from '../../../../src/domain/shared/domain-error';
import {
  LastActiveAdminError,
  UserChangedConcurrentlyError,
  UserNotFoundError,
} from '../../../../src/domain/users/user.errors';
import { ActorMother } from '../../../support/mothers/actor.mother';
import { ADMIN_ROLE_ID, MEMBER_ROLE_ID, RoleMother } from '../../../support/mothers/role.mother';
import { administrationWorld, HELPDESK } from './administration-world';

function setup() {
  const world = administrationWorld();
  const update = new UpdateUserUseCase(world.deps);
  const get = new GetUserUseCase({ userRepository: world.users, roleRepository: world.roles, invitationRepository: world.invitations });
  return { ...world, update, get };
}

describe('GetUserUseCase', () => {
  it("shows one user as the list does, plus its status and version; a pending user's unknown fields are left out", async () => {
    const { get, admin, member, invitee } = setup();

    const joined = await get.execute({ actor: admin, userId: member.id });
    expect(joined.user).toMatchObject({ _id: member.id, name: 'Ada Lovelace', username: 'ada', email: 'Ada@Example.com', status: 'active' });
    expect(joined.user.role).toEqual({ _id: MEMBER_ROLE_ID, name: 'member', permissions: [] });
    expect(joined.version).toBe(1);

    const pending = await get.execute({ actor: admin, userId: invitee.id });
    expect(pending.user.status).toBe('pending');
    expect(Object.keys(pending.user)).not.toEqual(expect.arrayContaining(['username']));
    expect(JSON.stringify(pending)).not.toMatch(/password/i);
  });

  it('needs users:read, and answers UserNotFoundError for an unknown id', async () => {
    const { get, member, admin } = setup();
    await expect(get.execute({ actor: ActorMother.withoutPermissions(), userId: member.id })).rejects.toBeInstanceOf(PermissionDeniedError);
    await expect(get.execute({ actor: admin, userId: 'no-such-user' })).rejects.toBeInstanceOf(UserNotFoundError);
  });
});

describe('UpdateUserUseCase', () => {
  it('renames a user: stored, updated_by/updated_date set, version moved on, one UserUpdated naming the change', async () => {
    const { update, admin, member, stored, outbox, clock } = setup();

    const result = await update.execute({ actor: admin, userId: member.id, name: '  Ada King  ' });

    const saved = await stored(member);
    expect([saved.name, saved.updatedBy, saved.updatedAt, saved.version, saved.roleId]).toEqual(['Ada King', admin.userId, clock.now(), 2, MEMBER_ROLE_ID]);
    expect(result.user).toMatchObject({ name: 'Ada King', updated_by: admin.userId, updated_date: clock.now().toISOString() });
    expect(result.version).toBe(2);
    expect(outbox.events.map((e) => [e.type, e.aggregateId, e.data])).toEqual([
      ['UserUpdated', member.id, { user_id: member.id, changes: { name: 'Ada King' }, updated_by: admin.userId, updated_date: clock.now().toISOString() }],
    ]);
  });

  it('changes the role by name or by _id, recording UserRoleChanged with the previous role', async () => {
    const { update, admin, member, stored, outbox } = setup();

    await update.execute({ actor: admin, userId: member.id, role: HELPDESK.id });
    expect((await stored(member)).roleId).toBe(HELPDESK.id);
    await update.execute({ actor: admin, userId: member.id, role: 'member' });
    expect((await stored(member)).roleId).toBe(MEMBER_ROLE_ID);

    expect(outbox.events.map((e) => [e.type, (e.data.role as { name: string }).name, (e.data.previous_role as { name: string }).name])).toEqual([
      ['UserRoleChanged', 'helpdesk', 'member'],
      ['UserRoleChanged', 'member', 'helpdesk'],
    ]);
  });

  it('records both events, in order, when name and role change together; nothing when nothing changes', async () => {
    const { update, admin, member, outbox, stored } = setup();

    await update.execute({ actor: admin, userId: member.id, name: 'Ada Lovelace', role: 'member' });
    expect(outbox.events).toEqual([]);
    expect((await stored(member)).version).toBe(1);

    await update.execute({ actor: admin, userId: member.id, name: 'Ada B.', role: 'helpdesk' });
    expect(outbox.events.map((e) => e.type)).toEqual(['UserUpdated', 'UserRoleChanged']);
  });

  it('needs users:update, and refuses to hand out a role holding permissions the actor lacks, writing nothing', async () => {
    const { update, member, expectNothingWritten } = setup();
    const helpdesk = ActorMother.withPermissions(HELPDESK.permissions);

    await expect(update.execute({ actor: ActorMother.withPermissions([Permissions.usersRead]), userId: member.id, name: 'X' })).rejects.toMatchObject({
      missing: [Permissions.usersUpdate],
    });
    const failure = await update.execute({ actor: helpdesk, userId: member.id, role: 'admin' }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(PermissionDeniedError);
    expect((failure as PermissionDeniedError).missing).toContain(Permissions.rolesWrite);
    expectNothingWritten();
  });

  it("refuses to change a user whose role holds permissions the actor lacks (a helpdesk cannot rename an admin)", async () => {
    const { update, otherAdmin, expectNothingWritten } = setup();

    await expect(update.execute({ actor: ActorMother.withPermissions(HELPDESK.permissions), userId: otherAdmin.id, name: 'Mallory' })).rejects.toBeInstanceOf(
      PermissionDeniedError,
    );
    expectNothingWritten();
  });

  it('refuses an invalid name, an unknown role and an unknown user', async () => {
    const { update, admin, member } = setup();
    await expect(update.execute({ actor: admin, userId: member.id, name: '   ' })).rejects.toBeInstanceOf(ValidationError);
    await expect(update.execute({ actor: admin, userId: member.id, role: 'auditor' })).rejects.toBeInstanceOf(RoleNotFoundError);
    await expect(update.execute({ actor: admin, userId: 'no-such-user', name: 'X' })).rejects.toBeInstanceOf(UserNotFoundError);
  });

  it('demotes an admin while another active admin stays, and never the last active one', async () => {
    const { update, admin, adminUser, otherAdmin, stored, users } = setup();

    await update.execute({ actor: admin, userId: otherAdmin.id, role: 'member' });
    expect((await stored(otherAdmin)).roleId).toBe(MEMBER_ROLE_ID);

    await expect(update.execute({ actor: admin, userId: adminUser.id, role: 'member' })).rejects.toBeInstanceOf(LastActiveAdminError);
    expect((await users.findById(adminUser.id))!.roleId).toBe(ADMIN_ROLE_ID);
  });

  it('refuses a change named for a version the user has moved on from (If-Match)', async () => {
    const { update, admin, member, stored } = setup();
    await update.execute({ actor: admin, userId: member.id, name: 'First', expectedVersion: 1 });

    await expect(update.execute({ actor: admin, userId: member.id, name: 'Second', expectedVersion: 1 })).rejects.toBeInstanceOf(
      UserChangedConcurrentlyError,
    );
    expect((await stored(member)).name).toBe('First');
  });

  it('lets one of two concurrent conflicting updates win; the other fails with UserChangedConcurrentlyError, no write lost silently', async () => {
    const { update, admin, member, stored, outbox } = setup();

    const outcomes = await Promise.allSettled([
      update.execute({ actor: admin, userId: member.id, name: 'Winner A' }),
      update.execute({ actor: admin, userId: member.id, name: 'Winner B' }),
    ]);

    const won = outcomes.filter((o) => o.status === 'fulfilled');
    const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect([won.length, lost.length]).toEqual([1, 1]);
    expect(lost[0]!.reason).toBeInstanceOf(UserChangedConcurrentlyError);
    const saved = await stored(member);
    expect(saved.name).toBe((won[0] as PromiseFulfilledResult<{ user: { name?: string } }>).value.user.name);
    expect(saved.version).toBe(2);
    expect(outbox.events.map((e) => e.data.changes)).toEqual([{ name: saved.name }]);
  });

  it('moves an invitee to another role before it joins (the role its invitation hands out)', async () => {
    const { update, admin, invitee, stored } = setup();

    await update.execute({ actor: admin, userId: invitee.id, role: RoleMother.admin().id });

    expect((await stored(invitee)).roleId).toBe(ADMIN_ROLE_ID);
    expect((await stored(invitee)).status).toBe('pending');
  });
});
