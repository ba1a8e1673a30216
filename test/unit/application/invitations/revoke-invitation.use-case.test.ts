import { auditRecorderFor } from '../../../support/fakes/audit-recorder';
import type { Actor } from '../../../../src/application/auth/actor';
import { RevokeInvitationUseCase } from '../../../../src/application/invitations/revoke-invitation.use-case';
import { UserAlreadyJoinedError } from '../../../../src/domain/invitations/invitation.errors';
import { Permissions } from '../../../../src/domain/permissions/permission';
import { PermissionDeniedError } from '../../../../src/domain/permissions/permission-denied.error';
import { USER_INVITATION_REVOKED } from '../../../../src/domain/users/user-events';
import { UserNotFoundError } from '../../../../src/domain/users/user.errors';
import { FixedClock } from '../../../support/fakes/fixed-clock';
import { InMemoryInvitationRepository } from '../../../support/fakes/in-memory-invitation.repository';
import { InMemoryOutbox } from '../../../support/fakes/in-memory-outbox';
import { InMemoryRoleRepository } from '../../../support/fakes/in-memory-role.repository';
import { InMemoryUnitOfWork } from '../../../support/fakes/in-memory-unit-of-work';
import { InMemoryUserRepository } from '../../../support/fakes/in-memory-user.repository';
import { SequentialIdGenerator } from '../../../support/fakes/sequential-id-generator';
import { ActorMother } from '../../../support/mothers/actor.mother';
import { InvitationMother } from '../../../support/mothers/invitation.mother';
import { RoleMother } from '../../../support/mothers/role.mother';
import { UserMother } from '../../../support/mothers/user.mother';

const inviter = ActorMother.withPermissions([Permissions.usersInvite]);
const NOW = new Date('2026-02-20T10:00:00.000Z');

function setup() {
  const clock = new FixedClock(NOW);
  const ids = new SequentialIdGenerator(0xd0);
  const invitee = UserMother.pending({ email: 'Grace@Example.com' });
  const bystander = UserMother.pending();
  const users = new InMemoryUserRepository([invitee, bystander]);
  const outbox = new InMemoryOutbox();
  const issued = InvitationMother.valid(invitee.id);
  const bystanders = InvitationMother.valid(bystander.id);
  const invitations = new InMemoryInvitationRepository([issued.invitation, bystanders.invitation]);
  const roles = new InMemoryRoleRepository([RoleMother.admin(), RoleMother.member()]);
  const unitOfWork = new InMemoryUnitOfWork({ users, outbox, invitations, roles });
  const revoke = new RevokeInvitationUseCase({ auditRecorder: auditRecorderFor().auditRecorder, unitOfWork, clock, idGenerator: ids });
  /** Both users and both invitations as seeded, and no event. */
  const expectNothingDeleted = async () => {
    expect(users.all().map((u) => u.id).sort()).toEqual([invitee.id, bystander.id].sort());
    expect(invitations.all()).toEqual(expect.arrayContaining([issued.invitation, bystanders.invitation]));
    expect(invitations.count).toBe(2);
    expect(outbox.events).toEqual([]);
  };
  return { revoke, users, outbox, invitations, unitOfWork, invitee, bystander, issued, bystanders, expectNothingDeleted };
}

describe('RevokeInvitationUseCase', () => {
  it.each<[string, Actor]>([
    ['no permissions', ActorMother.withoutPermissions()],
    ['every permission but users:invite', ActorMother.withPermissions([Permissions.usersRead, Permissions.permissionsRead])],
  ])('refuses an actor with %s, naming users:invite, and deletes nothing', async (_label, actor) => {
    const { revoke, invitee, expectNothingDeleted } = setup();

    const failure = revoke.execute({ actor, userId: invitee.id });

    await expect(failure).rejects.toBeInstanceOf(PermissionDeniedError);
    await expect(failure).rejects.toMatchObject({ missing: [Permissions.usersInvite] });
    await expectNothingDeleted();
  });

  it('refuses to revoke the invitation of a role holding permissions the actor lacks, naming them, as resend does', async () => {
    const { revoke, users, invitations, outbox } = setup();
    const futureAdmin = UserMother.pending({ role: RoleMother.admin() });
    users.seed(futureAdmin);
    invitations.seed(InvitationMother.valid(futureAdmin.id).invitation);

    const error = await revoke.execute({ actor: inviter, userId: futureAdmin.id }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect((error as PermissionDeniedError).missing).toContain(Permissions.usersRead);
    expect((await users.findById(futureAdmin.id))?.toSnapshot()).toEqual(futureAdmin.toSnapshot());
    expect(invitations.forUser(futureAdmin.id)).toBeDefined();
    expect(outbox.events).toEqual([]);
  });

  it("lets an actor holding the role's permissions revoke it", async () => {
    const { revoke, users, outbox } = setup();
    const futureAdmin = UserMother.pending({ role: RoleMother.admin() });
    users.seed(futureAdmin);

    await revoke.execute({ actor: ActorMother.admin(), userId: futureAdmin.id });

    expect(await users.findById(futureAdmin.id)).toBeNull();
    expect(outbox.events.map((e) => [e.type, e.aggregateId])).toEqual([[USER_INVITATION_REVOKED, futureAdmin.id]]);
  });

  it('refuses an unknown user with UserNotFoundError', async () => {
    const { revoke, expectNothingDeleted } = setup();

    await expect(revoke.execute({ actor: inviter, userId: '0000ffff-0000-7000-8000-000000000000' })).rejects.toBeInstanceOf(
      UserNotFoundError,
    );
    await expectNothingDeleted();
  });

  it('refuses a joined user with UserAlreadyJoinedError, deleting neither the user nor its used invitation', async () => {
    const { revoke, users, invitations, outbox } = setup();
    const joined = UserMother.joined();
    const used = InvitationMother.used(joined.id);
    users.seed(joined);
    invitations.seed(used.invitation);

    await expect(revoke.execute({ actor: inviter, userId: joined.id })).rejects.toBeInstanceOf(UserAlreadyJoinedError);

    expect((await users.findById(joined.id))!.toSnapshot()).toEqual(joined.toSnapshot());
    expect(invitations.forUser(joined.id)).toEqual(used.invitation);
    expect(users.count).toBe(3);
    expect(invitations.count).toBe(3);
    expect(outbox.events).toEqual([]);
  });

  describe('success', () => {
    it('deletes the pending user and its invitation, and nothing else', async () => {
      const { revoke, users, invitations, invitee, bystander, issued, bystanders } = setup();

      await revoke.execute({ actor: inviter, userId: invitee.id });

      await expect(users.findById(invitee.id)).resolves.toBeNull();
      await expect(users.existsWithEmail('grace@example.com')).resolves.toBe(false);
      await expect(invitations.findByTokenHash(issued.invitation.tokenHash)).resolves.toBeNull();
      expect(invitations.forUser(invitee.id)).toBeUndefined();
      expect(users.all().map((u) => u.id)).toEqual([bystander.id]);
      expect(invitations.all()).toEqual([bystanders.invitation]);
    });

    it('records exactly one UserInvitationRevoked with the user, who revoked it and when', async () => {
      const { revoke, outbox, invitee } = setup();

      await revoke.execute({ actor: inviter, userId: invitee.id });

      expect(outbox.events).toHaveLength(1);
      const [event] = outbox.events;
      expect(event.type).toBe(USER_INVITATION_REVOKED);
      expect(event.aggregateId).toBe(invitee.id);
      expect(event.occurredAt).toEqual(NOW);
      expect(event.data).toEqual({
        user_id: invitee.id,
        email: 'Grace@Example.com',
        revoked_by: inviter.userId,
        revoked_date: NOW.toISOString(),
      });
    });

    it('revokes a pending user that has no invitation yet (the mail not sent)', async () => {
      const { revoke, users, outbox } = setup();
      const unsent = UserMother.pending();
      users.seed(unsent);

      await revoke.execute({ actor: inviter, userId: unsent.id });

      await expect(users.findById(unsent.id)).resolves.toBeNull();
      expect(outbox.events.map((e) => e.aggregateId)).toEqual([unsent.id]);
    });

    it('cannot revoke twice: the second time the user is not found', async () => {
      const { revoke, outbox, invitee } = setup();
      await revoke.execute({ actor: inviter, userId: invitee.id });

      await expect(revoke.execute({ actor: inviter, userId: invitee.id })).rejects.toBeInstanceOf(UserNotFoundError);
      expect(outbox.events).toHaveLength(1);
    });

    it('deletes nothing when the event cannot be saved', async () => {
      const { revoke, outbox, unitOfWork, invitee, expectNothingDeleted } = setup();
      outbox.failNextAppendWith(new Error('outbox table unavailable'));

      await expect(revoke.execute({ actor: inviter, userId: invitee.id })).rejects.toThrow('outbox table unavailable');

      await expectNothingDeleted();
      expect(unitOfWork.rollbacks).toBe(1);
    });
  });
});
