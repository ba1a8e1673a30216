import { auditRecorderFor } from '../../../support/fakes/audit-recorder';
import type { Actor } from '../../../../src/application/auth/actor';
import { InviteUserUseCase } from '../../../../src/application/invitations/invite-user.use-case';
import { Permissions } from '../../../../src/domain/permissions/permission';
import { PermissionDeniedError } from '../../../../src/domain/permissions/permission-denied.error';
import { RoleNotFoundError } from '../../../../src/domain/roles/role-not-found.error';
import { ValidationError } from '../../../../src/domain/shared/domain-error';
import { USER_INVITED } from '../../../../src/domain/users/user-invited.event';
import { EmailAlreadyTakenError } from '../../../../src/domain/users/user.errors';
import { FixedClock } from '../../../support/fakes/fixed-clock';
import { InMemoryOutbox } from '../../../support/fakes/in-memory-outbox';
import { InMemoryRoleRepository } from '../../../support/fakes/in-memory-role.repository';
import { InMemoryUnitOfWork } from '../../../support/fakes/in-memory-unit-of-work';
import { InMemoryUserRepository } from '../../../support/fakes/in-memory-user.repository';
import { SequentialIdGenerator } from '../../../support/fakes/sequential-id-generator';
import { ActorMother } from '../../../support/mothers/actor.mother';
import { RoleMother } from '../../../support/mothers/role.mother';
import { UserMother } from '../../../support/mothers/user.mother';

const inviter = ActorMother.withPermissions([Permissions.usersInvite]);
const admin = ActorMother.admin();

function setup() {
  const clock = new FixedClock('2026-02-14T09:30:00.250Z');
  const ids = new SequentialIdGenerator();
  const users = new InMemoryUserRepository();
  const outbox = new InMemoryOutbox();
  const unitOfWork = new InMemoryUnitOfWork({ users, outbox });
  const reader = RoleMother.withPermissions('reader', [Permissions.usersRead]);
  const roles = new InMemoryRoleRepository([RoleMother.admin(), RoleMother.member(), reader]);
  const invite = new InviteUserUseCase({ auditRecorder: auditRecorderFor().auditRecorder, roleRepository: roles, unitOfWork, clock, idGenerator: ids });
  /** Nothing written: no user, no event. */
  const expectNothingWritten = (usersBefore = 0) => {
    expect(users.count).toBe(usersBefore);
    expect(outbox.events).toEqual([]);
  };
  return { invite, clock, users, outbox, unitOfWork, reader, expectNothingWritten };
}

describe('InviteUserUseCase', () => {
  describe('permission', () => {
    it.each<[string, Actor]>([
      ['no permissions', ActorMother.withoutPermissions()],
      ['users:read and permissions:read but not users:invite', ActorMother.withPermissions([Permissions.usersRead, Permissions.permissionsRead])],
    ])('refuses an actor with %s and writes nothing', async (_label, actor) => {
      const { invite, expectNothingWritten } = setup();

      const failure = invite.execute({ actor, email: 'new@example.com' });

      await expect(failure).rejects.toBeInstanceOf(PermissionDeniedError);
      await expect(failure).rejects.toMatchObject({ missing: [Permissions.usersInvite] });
      expectNothingWritten();
    });

    it('refuses to hand out a role holding permissions the inviter lacks, naming them, and writes nothing', async () => {
      const { invite, expectNothingWritten } = setup();

      const failure = invite.execute({ actor: inviter, email: 'new@example.com', role: 'admin' });

      await expect(failure).rejects.toBeInstanceOf(PermissionDeniedError);
      const error = (await failure.catch((e: unknown) => e)) as PermissionDeniedError;
      expect([...error.missing].sort()).toEqual(RoleMother.admin().permissions.filter((p) => !inviter.permissions.includes(p)).sort());
      expect(error.missing).toContain(Permissions.usersRead);
      expectNothingWritten();
    });

    it('lets an inviter hand out a role whose permissions it holds, without being an admin', async () => {
      const { invite, users, reader } = setup();
      const actor = ActorMother.withPermissions([Permissions.usersInvite, Permissions.usersRead]);

      const { userId } = await invite.execute({ actor, email: 'reader@example.com', role: 'reader' });

      expect((await users.findById(userId))!.roleId).toBe(reader.id);
    });
  });

  describe('role', () => {
    it('gives the member role when none is named', async () => {
      const { invite, users, outbox } = setup();

      const { userId } = await invite.execute({ actor: inviter, email: 'new@example.com' });

      expect((await users.findById(userId))!.roleId).toBe(RoleMother.member().id);
      expect(outbox.events[0].data.role).toEqual({ _id: RoleMother.member().id, name: 'member' });
    });

    it('finds the role by name', async () => {
      const { invite, users, outbox } = setup();

      const { userId } = await invite.execute({ actor: admin, email: 'new@example.com', role: 'admin' });

      expect((await users.findById(userId))!.roleId).toBe(RoleMother.admin().id);
      expect(outbox.events[0].data.role).toEqual({ _id: RoleMother.admin().id, name: 'admin' });
    });

    it('finds the role by _id', async () => {
      const { invite, users, reader } = setup();

      const { userId } = await invite.execute({ actor: admin, email: 'new@example.com', role: reader.id });

      expect((await users.findById(userId))!.roleId).toBe(reader.id);
    });

    it.each(['owner', 'Admin', '0000000b-0000-7000-8000-00000000ffff'])(
      'refuses an unknown role (%s) with RoleNotFoundError and writes nothing',
      async (role) => {
        const { invite, expectNothingWritten } = setup();

        const failure = invite.execute({ actor: admin, email: 'new@example.com', role });

        await expect(failure).rejects.toBeInstanceOf(RoleNotFoundError);
        await expect(failure).rejects.toMatchObject({ code: 'ROLE_NOT_FOUND', details: { role } });
        expectNothingWritten();
      },
    );
  });

  describe('input', () => {
    it.each(['', 'not-an-address', 'ada@', '@example.com', 'ada@example', 'ada lovelace@example.com', `${'a'.repeat(250)}@x.io`])(
      'refuses the e-mail %j with a ValidationError on field email and writes nothing',
      async (email) => {
        const { invite, expectNothingWritten } = setup();

        const error = await invite.execute({ actor: inviter, email }).catch((e: unknown) => e);

        expect(error).toBeInstanceOf(ValidationError);
        expect((error as ValidationError).problems.map((p) => p.field)).toEqual(['email']);
        expectNothingWritten();
      },
    );

    it.each(['', '   ', 'bad\u0000name', 'x'.repeat(201)])('refuses the name %j with a ValidationError on field name', async (name) => {
      const { invite, expectNothingWritten } = setup();

      const error = await invite.execute({ actor: inviter, email: 'new@example.com', name }).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).problems.map((p) => p.field)).toEqual(['name']);
      expectNothingWritten();
    });
  });

  describe('an e-mail that already belongs to a user', () => {
    it.each([
      ['a joined user', 'ada@example.com', 'ADA@Example.COM'],
      ['a pending user', 'Invitee@Example.com', 'invitee@example.com'],
    ])('is refused for %s whatever the case, and nothing is written', async (label, stored, typed) => {
      const { invite, users, expectNothingWritten } = setup();
      users.seed(label === 'a joined user' ? UserMother.joined({ email: stored }) : UserMother.pending({ email: stored }));

      const failure = invite.execute({ actor: inviter, email: typed });

      await expect(failure).rejects.toBeInstanceOf(EmailAlreadyTakenError);
      await expect(failure).rejects.toMatchObject({ code: 'EMAIL_TAKEN' });
      expectNothingWritten(1);
      expect(users.all()[0].email).toBe(stored);
    });

    it('lets exactly one of two simultaneous invitations of one address through (the unique key decides)', async () => {
      const { invite, users, outbox } = setup();

      const outcomes = await Promise.allSettled([
        invite.execute({ actor: inviter, email: 'race@example.com' }),
        invite.execute({ actor: inviter, email: 'RACE@example.com' }),
      ]);

      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      const rejected = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
      expect(rejected).toHaveLength(1);
      expect(rejected[0].reason).toBeInstanceOf(EmailAlreadyTakenError);
      expect(users.count).toBe(1);
      expect(outbox.events).toHaveLength(1);
    });
  });

  describe('success', () => {
    it('writes a pending user invited by the actor at the time of the clock', async () => {
      const { invite, users, clock } = setup();
      clock.advance(60_000);

      const { userId } = await invite.execute({ actor: inviter, email: '  Grace.Hopper@Example.com ' });

      const stored = (await users.findById(userId))!;
      expect(users.count).toBe(1);
      expect(stored.email).toBe('Grace.Hopper@Example.com');
      expect(stored.invitedBy).toBe(inviter.userId);
      expect(stored.invitedAt.toISOString()).toBe('2026-02-14T09:31:00.250Z');
      expect(stored.isJoined).toBe(false);
      expect(stored.username).toBeUndefined();
      expect(stored.passwordHash).toBeUndefined();
      expect(stored.joinedAt).toBeUndefined();
      expect(stored.name).toBeUndefined();
    });

    it('keeps the name given to the invitation', async () => {
      const { invite, users, outbox } = setup();

      const { userId } = await invite.execute({ actor: inviter, email: 'grace@example.com', name: '  Grace Hopper ' });

      expect((await users.findById(userId))!.name).toBe('Grace Hopper');
      expect(outbox.events[0].data.name).toBe('Grace Hopper');
    });

    it('records exactly one UserInvited event with the user, its role, the inviter and the date, and no secret', async () => {
      const { invite, outbox, clock } = setup();
      clock.set('2026-03-01T00:00:00.000Z');

      const { userId } = await invite.execute({ actor: inviter, email: 'Grace@Example.com' });

      expect(outbox.events).toHaveLength(1);
      const [event] = outbox.events;
      expect(event.type).toBe(USER_INVITED);
      expect(event.aggregateId).toBe(userId);
      expect(event.id).not.toBe(userId);
      expect(event.occurredAt.toISOString()).toBe('2026-03-01T00:00:00.000Z');
      expect(event.data).toEqual({
        user_id: userId,
        email: 'Grace@Example.com',
        role: { _id: RoleMother.member().id, name: 'member' },
        invited_by: inviter.userId,
        invited_date: '2026-03-01T00:00:00.000Z',
      });
      expect(JSON.stringify(event.data)).not.toMatch(/password|hash|token|secret/i);
    });

    it('gives each invitation its own user id and event id', async () => {
      const { invite, outbox } = setup();

      const first = await invite.execute({ actor: inviter, email: 'one@example.com' });
      const second = await invite.execute({ actor: inviter, email: 'two@example.com' });

      expect(first.userId).not.toBe(second.userId);
      const eventIds = outbox.events.map((e) => e.id);
      expect(new Set([...eventIds, first.userId, second.userId]).size).toBe(4);
      expect(outbox.events.map((e) => e.aggregateId)).toEqual([first.userId, second.userId]);
    });

    it('writes the user and its event in one transaction: when the event cannot be saved, neither is', async () => {
      const { invite, outbox, unitOfWork, expectNothingWritten } = setup();
      outbox.failNextAppendWith(new Error('outbox table unavailable'));

      await expect(invite.execute({ actor: inviter, email: 'new@example.com' })).rejects.toThrow('outbox table unavailable');

      expectNothingWritten();
      expect(unitOfWork.commits).toBe(0);
      expect(unitOfWork.rollbacks).toBe(1);
    });
  });
});
