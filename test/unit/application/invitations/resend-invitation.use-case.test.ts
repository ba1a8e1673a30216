import { auditRecorderFor } from '../../../support/fakes/audit-recorder';
import type { Actor } from '../../../../src/application/auth/actor';
import { ResendInvitationUseCase } from '../../../../src/application/invitations/resend-invitation.use-case';
import { UserAlreadyJoinedError } from '../../../../src/domain/invitations/invitation.errors';
import { Permissions } from '../../../../src/domain/permissions/permission';
import { PermissionDeniedError } from '../../../../src/domain/permissions/permission-denied.error';
import { USER_INVITATION_RESENT } from '../../../../src/domain/users/user-events';
import { UserNotFoundError } from '../../../../src/domain/users/user.errors';
import { DEFAULT_NOW, FixedClock } from '../../../support/fakes/fixed-clock';
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
const admin = ActorMother.admin();
const NOW = new Date('2026-02-20T10:00:00.000Z');

function setup() {
  const clock = new FixedClock(NOW);
  const ids = new SequentialIdGenerator(0xc0);
  const users = new InMemoryUserRepository();
  const outbox = new InMemoryOutbox();
  const invitations = new InMemoryInvitationRepository();
  const reader = RoleMother.withPermissions('reader', [Permissions.usersRead]);
  const roles = new InMemoryRoleRepository([RoleMother.admin(), RoleMother.member(), reader]);
  const unitOfWork = new InMemoryUnitOfWork({ users, outbox, invitations, roles });
  const resend = new ResendInvitationUseCase({ auditRecorder: auditRecorderFor().auditRecorder, unitOfWork, clock, idGenerator: ids });
  const invitee = UserMother.pending({ name: 'Grace Hopper', email: 'Grace@Example.com', role: RoleMother.member() });
  users.seed(invitee);
  const expectUnchanged = async (...seeded: { id: string; toSnapshot: () => object }[]) => {
    for (const user of [invitee, ...seeded]) expect((await users.findById(user.id))!.toSnapshot()).toEqual(user.toSnapshot());
    expect(outbox.events).toEqual([]);
  };
  return { resend, clock, users, outbox, invitations, unitOfWork, reader, invitee, expectUnchanged };
}

describe('ResendInvitationUseCase', () => {
  describe('permission', () => {
    it.each<[string, Actor]>([
      ['no permissions', ActorMother.withoutPermissions()],
      ['every permission but users:invite', ActorMother.withPermissions([Permissions.usersRead, Permissions.permissionsRead])],
    ])('refuses an actor with %s, naming users:invite, and changes nothing', async (_label, actor) => {
      const { resend, invitee, expectUnchanged } = setup();

      const failure = resend.execute({ actor, userId: invitee.id });

      await expect(failure).rejects.toBeInstanceOf(PermissionDeniedError);
      await expect(failure).rejects.toMatchObject({ missing: [Permissions.usersInvite] });
      await expectUnchanged();
    });

    it('refuses to resend an invitation to a role holding permissions the inviter lacks, naming them', async () => {
      const { resend, users, expectUnchanged } = setup();
      const futureAdmin = UserMother.pending({ role: RoleMother.admin() });
      users.seed(futureAdmin);

      const error = await resend.execute({ actor: inviter, userId: futureAdmin.id }).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(PermissionDeniedError);
      expect([...(error as PermissionDeniedError).missing].sort()).toEqual(RoleMother.admin().permissions.filter((p) => !inviter.permissions.includes(p)).sort());
      expect((error as PermissionDeniedError).missing).toContain(Permissions.usersRead);
      await expectUnchanged(futureAdmin);
    });

    it('lets an inviter who holds the role\'s permissions resend, without being an admin', async () => {
      const { resend, users, outbox, reader } = setup();
      const futureReader = UserMother.pending({ role: reader });
      users.seed(futureReader);
      const actor = ActorMother.withPermissions([Permissions.usersInvite, Permissions.usersRead]);

      await resend.execute({ actor, userId: futureReader.id });

      expect(outbox.events.map((e) => [e.type, e.aggregateId])).toEqual([[USER_INVITATION_RESENT, futureReader.id]]);
    });
  });

  it('refuses an unknown user with UserNotFoundError', async () => {
    const { resend, expectUnchanged } = setup();

    await expect(resend.execute({ actor: admin, userId: '0000ffff-0000-7000-8000-000000000000' })).rejects.toBeInstanceOf(UserNotFoundError);
    await expectUnchanged();
  });

  it('refuses a joined user with UserAlreadyJoinedError, and changes nothing', async () => {
    const { resend, users, expectUnchanged } = setup();
    const joined = UserMother.joined({ role: RoleMother.member() });
    users.seed(joined);

    await expect(resend.execute({ actor: admin, userId: joined.id })).rejects.toBeInstanceOf(UserAlreadyJoinedError);
    await expect(resend.execute({ actor: inviter, userId: joined.id })).rejects.toBeInstanceOf(UserAlreadyJoinedError);
    await expectUnchanged(joined);
  });

  describe('success', () => {
    it('records exactly one UserInvitationResent with the user, its role, who resent it and when', async () => {
      const { resend, outbox, invitee } = setup();

      await resend.execute({ actor: inviter, userId: invitee.id });

      expect(outbox.events).toHaveLength(1);
      const [event] = outbox.events;
      expect(event.type).toBe(USER_INVITATION_RESENT);
      expect(event.aggregateId).toBe(invitee.id);
      expect(event.occurredAt).toEqual(NOW);
      expect(event.data).toEqual({
        user_id: invitee.id,
        email: 'Grace@Example.com',
        name: 'Grace Hopper',
        role: { _id: RoleMother.member().id, name: 'member' },
        resent_by: inviter.userId,
        resent_date: NOW.toISOString(),
      });
    });

    it('sets updated_by to the actor and updated_date to now, and leaves the user pending and otherwise unchanged', async () => {
      const { resend, users, invitee } = setup();

      await resend.execute({ actor: inviter, userId: invitee.id });

      const stored = (await users.findById(invitee.id))!;
      expect(stored.toSnapshot()).toEqual({ ...invitee.toSnapshot(), updatedBy: inviter.userId, updatedAt: NOW, version: invitee.version + 1 });
      expect(stored.isJoined).toBe(false);
    });

    it('works after the invitation expired, and the old link dies with it (the mailer issues the new one)', async () => {
      const { resend, invitations, outbox, invitee } = setup();
      const expired = InvitationMother.expired(invitee.id, DEFAULT_NOW);
      invitations.seed(expired.invitation);

      await resend.execute({ actor: inviter, userId: invitee.id });

      expect(outbox.events).toHaveLength(1);
      expect(invitations.all()).toEqual([]);
    });

    it('kills a link still valid at once: the 202 says the old one dies, and no acceptance finds it after', async () => {
      const { resend, invitations, invitee } = setup();
      const valid = InvitationMother.valid(invitee.id);
      invitations.seed(valid.invitation);

      await resend.execute({ actor: inviter, userId: invitee.id });

      expect(await invitations.findByTokenHash(valid.invitation.tokenHash)).toBeNull();
    });

    it('records one event per resend, each with its own id', async () => {
      const { resend, outbox, clock, invitee } = setup();

      await resend.execute({ actor: inviter, userId: invitee.id });
      clock.advance(60_000);
      await resend.execute({ actor: admin, userId: invitee.id });

      expect(outbox.events.map((e) => e.data.resent_by)).toEqual([inviter.userId, admin.userId]);
      expect(new Set(outbox.events.map((e) => e.id)).size).toBe(2);
    });

    it('changes nothing when the event cannot be saved', async () => {
      const { resend, outbox, unitOfWork, invitee, expectUnchanged } = setup();
      outbox.failNextAppendWith(new Error('outbox table unavailable'));

      await expect(resend.execute({ actor: inviter, userId: invitee.id })).rejects.toThrow('outbox table unavailable');

      await expectUnchanged();
      expect(unitOfWork.rollbacks).toBe(1);
    });
  });
});
