import { auditRecorderFor } from '../../support/fakes/audit-recorder';
/**
 * Every use case that writes through the unit of work, run with a unit of work that rolls back a
 * first attempt of each closure and runs it again, as the TypeORM one does after an InnoDB
 * deadlock. What commits must be what one clean attempt commits: the same rows and exactly one of
 * each event. (InviteUserUseCase once built its user outside the closure: the retry then
 * committed the user without its UserInvited, and no mail was ever sent.)
 */
import { AcceptInvitationUseCase } from '../../../src/application/invitations/accept-invitation.use-case';
import { InviteUserUseCase } from '../../../src/application/invitations/invite-user.use-case';
import { IssueInvitationUseCase } from '../../../src/application/invitations/issue-invitation.use-case';
import { ResendInvitationUseCase } from '../../../src/application/invitations/resend-invitation.use-case';
import { RevokeInvitationUseCase } from '../../../src/application/invitations/revoke-invitation.use-case';
import { CreateAdminUseCase } from '../../../src/application/users/create-admin.use-case';
import { DeactivateUserUseCase } from '../../../src/application/users/deactivate-user.use-case';
import { DeleteUserUseCase } from '../../../src/application/users/delete-user.use-case';
import { ReactivateUserUseCase } from '../../../src/application/users/reactivate-user.use-case';
import { UpdateUserUseCase } from '../../../src/application/users/update-user.use-case';
import { USER_INVITATION_RESENT, USER_INVITATION_REVOKED, USER_JOINED } from '../../../src/domain/users/user-events';
import { USER_INVITED } from '../../../src/domain/users/user-invited.event';
import { FakePasswordHasher } from '../../support/fakes/fake-password-hasher';
import { FakeSecretTokens } from '../../support/fakes/fake-secret-tokens';
import { DEFAULT_NOW, FixedClock } from '../../support/fakes/fixed-clock';
import { InMemoryInvitationRepository } from '../../support/fakes/in-memory-invitation.repository';
import { InMemoryOutbox } from '../../support/fakes/in-memory-outbox';
import { InMemoryProcessedEventStore } from '../../support/fakes/in-memory-processed-event.store';
import { InMemoryRoleRepository } from '../../support/fakes/in-memory-role.repository';
import { InMemoryUnitOfWork } from '../../support/fakes/in-memory-unit-of-work';
import { InMemoryUserRepository } from '../../support/fakes/in-memory-user.repository';
import { RecordingMailer } from '../../support/fakes/recording-mailer';
import { SequentialIdGenerator } from '../../support/fakes/sequential-id-generator';
import { ActorMother } from '../../support/mothers/actor.mother';
import { InvitationMother } from '../../support/mothers/invitation.mother';
import { RoleMother } from '../../support/mothers/role.mother';
import { UserMother } from '../../support/mothers/user.mother';

function world() {
  const clock = new FixedClock(DEFAULT_NOW);
  const ids = new SequentialIdGenerator(0xf0);
  const users = new InMemoryUserRepository();
  const outbox = new InMemoryOutbox();
  const invitations = new InMemoryInvitationRepository();
  const processedEvents = new InMemoryProcessedEventStore();
  const roles = new InMemoryRoleRepository([RoleMother.admin(), RoleMother.member()]);
  const unitOfWork = new InMemoryUnitOfWork({ users, outbox, invitations, processedEvents, roles, retryEveryRun: true });
  const invitee = UserMother.pending({ name: 'Grace Hopper', email: 'grace@example.com', role: RoleMother.member() });
  users.seed(invitee);
  const { auditRecorder } = auditRecorderFor({ clock, auditTrail: unitOfWork.audit });
  return { clock, ids, users, outbox, invitations, processedEvents, unitOfWork, roles, invitee, auditRecorder };
}

/** The committed events, by type, each once: a retry must neither lose nor repeat one. */
function eventTypes(outbox: InMemoryOutbox): string[] {
  return outbox.events.map((e) => e.type);
}

describe('a unit of work that runs each closure twice (a deadlock retry)', () => {
  it('InviteUserUseCase commits the user with exactly one UserInvited for it', async () => {
    const w = world();
    const invite = new InviteUserUseCase({ auditRecorder: w.auditRecorder, roleRepository: w.roles, unitOfWork: w.unitOfWork, clock: w.clock, idGenerator: w.ids });

    const { userId } = await invite.execute({ actor: ActorMother.admin(), email: 'ada@example.com' });

    expect(w.unitOfWork.retriedAttempts).toBe(1);
    expect(eventTypes(w.outbox)).toEqual([USER_INVITED]);
    expect(w.outbox.events[0].aggregateId).toBe(userId);
    expect((await w.users.findById(userId))?.email).toBe('ada@example.com');
  });

  it('ResendInvitationUseCase commits exactly one UserInvitationResent', async () => {
    const w = world();
    const resend = new ResendInvitationUseCase({ auditRecorder: w.auditRecorder, unitOfWork: w.unitOfWork, clock: w.clock, idGenerator: w.ids });

    await resend.execute({ actor: ActorMother.admin(), userId: w.invitee.id });

    expect(w.unitOfWork.retriedAttempts).toBe(1);
    expect(eventTypes(w.outbox)).toEqual([USER_INVITATION_RESENT]);
  });

  it('RevokeInvitationUseCase deletes the user and commits exactly one UserInvitationRevoked', async () => {
    const w = world();
    w.invitations.seed(InvitationMother.valid(w.invitee.id).invitation);
    const revoke = new RevokeInvitationUseCase({ auditRecorder: w.auditRecorder, unitOfWork: w.unitOfWork, clock: w.clock, idGenerator: w.ids });

    await revoke.execute({ actor: ActorMother.admin(), userId: w.invitee.id });

    expect(eventTypes(w.outbox)).toEqual([USER_INVITATION_REVOKED]);
    expect(await w.users.findById(w.invitee.id)).toBeNull();
    expect(w.invitations.count).toBe(0);
  });

  it('AcceptInvitationUseCase joins the user once, with exactly one UserJoined', async () => {
    const w = world();
    const { invitation, token } = InvitationMother.valid(w.invitee.id);
    w.invitations.seed(invitation);
    const accept = new AcceptInvitationUseCase({ auditRecorder: w.auditRecorder,
      unitOfWork: w.unitOfWork,
      secretTokens: new FakeSecretTokens(),
      passwordHasher: new FakePasswordHasher(),
      clock: w.clock,
      idGenerator: w.ids,
    });

    await accept.execute({ token, name: 'Grace Hopper', username: 'grace.hopper', password: 'a long enough passphrase' });

    expect(w.unitOfWork.retriedAttempts).toBe(1);
    expect(eventTypes(w.outbox)).toEqual([USER_JOINED]);
    expect((await w.users.findById(w.invitee.id))?.username).toBe('grace.hopper');
  });

  it('IssueInvitationUseCase mails one link whose token is the one committed', async () => {
    const w = world();
    const tokens = new FakeSecretTokens();
    const mailer = new RecordingMailer();
    const issue = new IssueInvitationUseCase({
      unitOfWork: w.unitOfWork,
      processedEventStore: w.processedEvents,
      secretTokens: tokens,
      mailer,
      clock: w.clock,
      invitationSettings: { publicUrl: 'https://ac.example.com', invitationTtlSeconds: 3600 },
    });

    expect(await issue.execute({ eventId: 'event-1', userId: w.invitee.id })).toBe('sent');

    expect(mailer.sent).toHaveLength(1);
    const token = new URL(mailer.sent[0].link).searchParams.get('token')!;
    expect(w.invitations.all()).toHaveLength(1);
    expect(w.invitations.all()[0].tokenHash).toBe(tokens.hash(token));
  });

  it('CreateAdminUseCase creates the admin once, with one UserJoined', async () => {
    const w = world();
    const createAdmin = new CreateAdminUseCase({ auditRecorder: w.auditRecorder,
      roleRepository: w.roles,
      unitOfWork: w.unitOfWork,
      passwordHasher: new FakePasswordHasher(),
      clock: w.clock,
      idGenerator: w.ids,
    });

    const outcome = await createAdmin.execute({ username: 'root.admin', password: 'a long enough admin password', email: 'root@example.com' });

    expect(outcome).toMatchObject({ created: true });
    const admins = w.users.all().filter((u) => u.email === 'root@example.com');
    expect(admins).toHaveLength(1);
    expect(w.outbox.events.map((e) => [e.type, e.aggregateId])).toEqual([['UserJoined', admins[0]!.id]]);
  });

  it('the administration use cases each commit their change once, with exactly one event each', async () => {
    const w = world();
    const { auditRecorder } = auditRecorderFor({ clock: w.clock, auditTrail: w.unitOfWork.audit });
    const deps = { auditRecorder, roleRepository: w.roles, unitOfWork: w.unitOfWork, clock: w.clock, idGenerator: w.ids };
    const admin = ActorMother.admin();
    const member = UserMother.joined({ role: RoleMother.member() });
    w.users.seed(UserMother.joined({ role: RoleMother.admin() }));
    w.users.seed(member);

    await new UpdateUserUseCase(deps).execute({ actor: admin, userId: member.id, name: 'Renamed', role: 'admin' });
    await new DeactivateUserUseCase(deps).execute({ actor: admin, userId: member.id });
    await new ReactivateUserUseCase(deps).execute({ actor: admin, userId: member.id });
    await new DeleteUserUseCase(deps).execute({ actor: admin, userId: member.id });

    expect(w.unitOfWork.retriedAttempts).toBe(4);
    expect(eventTypes(w.outbox)).toEqual(['UserUpdated', 'UserRoleChanged', 'UserDeactivated', 'UserReactivated', 'UserDeleted']);
    // One audit entry per change, each once: the rolled-back attempt's entries went with it.
    expect(w.unitOfWork.audit.entries.map((e) => e.action)).toEqual(['user.updated', 'user.role_changed', 'user.deactivated', 'user.reactivated', 'user.deleted']);
    // One token version bump by the deactivation, one by the erasure: neither repeated by the retry.
    expect(w.users.erased(member.id)).toMatchObject({ status: 'deleted', version: 5, tokenVersion: 2 });
  });
});
