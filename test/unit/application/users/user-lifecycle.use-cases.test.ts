import { auditRecorderFor } from '../../../support/fakes/audit-recorder';
import { AuthenticateActorUseCase } from '../../../../src/application/auth/authenticate-actor.use-case';
import { SignInUseCase } from '../../../../src/application/auth/sign-in.use-case';
import { AcceptInvitationUseCase } from '../../../../src/application/invitations/accept-invitation.use-case';
import { InviteUserUseCase } from '../../../../src/application/invitations/invite-user.use-case';
import { DeactivateUserUseCase } from '../../../../src/application/users/deactivate-user.use-case';
import { DeleteUserUseCase } from '../../../../src/application/users/delete-user.use-case';
import { ReactivateUserUseCase } from '../../../../src/application/users/reactivate-user.use-case';
import { InvitationNotFoundError } from '../../../../src/domain/invitations/invitation.errors';
import { Permissions } from '../../../../src/domain/permissions/permission';
import { PermissionDeniedError } from '../../../../src/domain/permissions/permission-denied.error';
import {
  InvalidCredentialsError,
  LastActiveAdminError,
  OwnAccountError,
  UserNotFoundError,
} from '../../../../src/domain/users/user.errors';
import { FakePasswordHasher } from '../../../support/fakes/fake-password-hasher';
import { FakeSecretTokens } from '../../../support/fakes/fake-secret-tokens';
import { FakeTokenIssuer } from '../../../support/fakes/fake-token-issuer';
import { fakeSessionIssuer } from '../../../support/fakes/fake-session-issuer';
import { InMemoryLoginAttempts } from '../../../support/fakes/in-memory-login-attempts';
import { ActorMother } from '../../../support/mothers/actor.mother';
import { InvitationMother } from '../../../support/mothers/invitation.mother';
import { DEFAULT_PASSWORD, UserMother } from '../../../support/mothers/user.mother';
import { administrationWorld, HELPDESK } from './administration-world';

const LOCKOUT = { threshold: 30, baseWaitSeconds: 60, maxWaitSeconds: 900 };

function setup() {
  const world = administrationWorld();
  const { users, roles, clock } = world;
  const hasher = new FakePasswordHasher();
  const signIn = new SignInUseCase({ auditRecorder: auditRecorderFor().auditRecorder,
    userRepository: users,
    roleRepository: roles,
    passwordHasher: hasher,
    sessionIssuer: fakeSessionIssuer(new FakeTokenIssuer(clock), clock).sessionIssuer,
    loginAttempts: new InMemoryLoginAttempts(),
    lockoutPolicy: LOCKOUT,
    clock,
  });
  const accept = new AcceptInvitationUseCase({ ...world.deps, secretTokens: new FakeSecretTokens(), passwordHasher: hasher });
  return {
    ...world,
    hasher,
    signIn,
    accept,
    authenticate: new AuthenticateActorUseCase({ userRepository: users, roleRepository: roles }),
    deactivate: new DeactivateUserUseCase(world.deps),
    reactivate: new ReactivateUserUseCase(world.deps),
    remove: new DeleteUserUseCase(world.deps),
    invite: new InviteUserUseCase(world.deps),
  };
}

const failureOf = (promise: Promise<unknown>) => promise.then(() => null, (e: unknown) => e as Error);

describe('DeactivateUserUseCase', () => {
  it('locks a joined user out: deactivated, token version bumped, one UserDeactivated, updated_* set', async () => {
    const { deactivate, admin, member, stored, outbox, clock } = setup();

    const result = await deactivate.execute({ actor: admin, userId: member.id });

    const saved = await stored(member);
    expect([saved.status, saved.tokenVersion, saved.updatedBy, saved.updatedAt]).toEqual(['deactivated', member.tokenVersion + 1, admin.userId, clock.now()]);
    expect(result.user.status).toBe('deactivated');
    expect(outbox.events.map((e) => [e.type, e.data])).toEqual([
      ['UserDeactivated', { user_id: member.id, deactivated_by: admin.userId, deactivated_date: clock.now().toISOString() }],
    ]);
  });

  it('ends its tokens at once and makes its sign-in fail exactly as a wrong password does', async () => {
    const { deactivate, signIn, authenticate, admin, member, hasher } = setup();
    const before = await authenticate.execute({ subject: member.id, tokenVersion: member.tokenVersion });
    expect(before?.userId).toBe(member.id);

    await deactivate.execute({ actor: admin, userId: member.id });

    await expect(authenticate.execute({ subject: member.id, tokenVersion: member.tokenVersion })).resolves.toBeNull();
    await expect(authenticate.execute({ subject: member.id, tokenVersion: member.tokenVersion + 1 })).resolves.toBeNull();
    const calls = hasher.verifyCalls;
    const deactivated = await failureOf(signIn.execute({ username: 'ada', password: DEFAULT_PASSWORD }));
    const wrong = await failureOf(signIn.execute({ username: 'ada', password: 'not the password at all' }));
    expect(deactivated).toBeInstanceOf(InvalidCredentialsError);
    expect([deactivated?.message, (deactivated as InvalidCredentialsError).code]).toEqual([wrong?.message, (wrong as InvalidCredentialsError).code]);
    expect(hasher.verifyCalls - calls).toBe(2);
  });

  it("kills a deactivated invitee's link: accepting reads as a dead link and joins no one", async () => {
    const { deactivate, accept, admin, invitee, invitations, stored } = setup();
    const issued = InvitationMother.valid(invitee.id);
    invitations.seed(issued.invitation);

    await deactivate.execute({ actor: admin, userId: invitee.id });
    const failure = accept.execute({ token: issued.token, name: 'Grace', username: 'grace', password: 'a long enough passphrase' });

    await expect(failure).rejects.toBeInstanceOf(InvitationNotFoundError);
    expect((await stored(invitee)).isJoined).toBe(false);
    expect(invitations.forUser(invitee.id)?.usedAt).toBeUndefined();
  });

  it('changes nothing for a user already deactivated', async () => {
    const { deactivate, admin, users, outbox } = setup();
    const locked = UserMother.deactivated();
    users.seed(locked);

    await deactivate.execute({ actor: admin, userId: locked.id });

    expect(outbox.events).toEqual([]);
    expect((await users.findById(locked.id))!.version).toBe(locked.version);
  });

  it('refuses the actor itself, a user whose role holds permissions the actor lacks, and an actor without users:deactivate', async () => {
    const { deactivate, admin, adminUser, otherAdmin, expectNothingWritten } = setup();

    await expect(deactivate.execute({ actor: admin, userId: adminUser.id })).rejects.toBeInstanceOf(OwnAccountError);
    await expect(deactivate.execute({ actor: ActorMother.withPermissions(HELPDESK.permissions), userId: otherAdmin.id })).rejects.toBeInstanceOf(
      PermissionDeniedError,
    );
    await expect(deactivate.execute({ actor: ActorMother.withPermissions([Permissions.usersRead]), userId: otherAdmin.id })).rejects.toMatchObject({
      missing: [Permissions.usersDeactivate],
    });
    expectNothingWritten();
  });

  it('deactivates an admin while another stays active, and refuses the last active admin', async () => {
    const { deactivate, admin, adminUser, otherAdmin, stored } = setup();

    await deactivate.execute({ actor: admin, userId: otherAdmin.id });
    await expect(deactivate.execute({ actor: ActorMother.admin(otherAdmin.id), userId: adminUser.id })).rejects.toBeInstanceOf(LastActiveAdminError);

    expect([(await stored(otherAdmin)).status, (await stored(adminUser)).status]).toEqual(['deactivated', 'active']);
  });

  it('lets only one of two admins deactivating each other at once succeed: an active admin always stays', async () => {
    const { deactivate, adminUser, otherAdmin, admin, users } = setup();

    const outcomes = await Promise.allSettled([
      deactivate.execute({ actor: admin, userId: otherAdmin.id }),
      deactivate.execute({ actor: ActorMother.admin(otherAdmin.id), userId: adminUser.id }),
    ]);

    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect((outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult).reason).toBeInstanceOf(LastActiveAdminError);
    expect(users.all().filter((u) => u.roleId === adminUser.roleId && u.status === 'active')).toHaveLength(1);
  });
});

describe('ReactivateUserUseCase', () => {
  it('restores sign-in with the same password, records UserReactivated; old tokens stay ended', async () => {
    const { deactivate, reactivate, signIn, authenticate, admin, member, outbox, stored } = setup();
    await deactivate.execute({ actor: admin, userId: member.id });

    const result = await reactivate.execute({ actor: admin, userId: member.id });

    expect(result.user.status).toBe('active');
    await expect(signIn.execute({ username: 'ada', password: DEFAULT_PASSWORD })).resolves.toMatchObject({ username: 'ada' });
    await expect(authenticate.execute({ subject: member.id, tokenVersion: member.tokenVersion })).resolves.toBeNull();
    const current = (await stored(member)).tokenVersion;
    await expect(authenticate.execute({ subject: member.id, tokenVersion: current })).resolves.toMatchObject({ userId: member.id });
    expect(outbox.events.map((e) => e.type)).toEqual(['UserDeactivated', 'UserReactivated']);
    expect(outbox.events[1]!.data).toMatchObject({ user_id: member.id, status: 'active', reactivated_by: admin.userId });
  });

  it("puts an invitee back to pending, so its link works again; a user not deactivated is left alone", async () => {
    const { deactivate, reactivate, admin, invitee, member, stored, outbox } = setup();
    await deactivate.execute({ actor: admin, userId: invitee.id });

    await reactivate.execute({ actor: admin, userId: invitee.id });
    await reactivate.execute({ actor: admin, userId: member.id });

    expect((await stored(invitee)).status).toBe('pending');
    expect(outbox.events.map((e) => [e.type, e.data.status])).toEqual([
      ['UserDeactivated', undefined],
      ['UserReactivated', 'pending'],
    ]);
  });

  it('needs users:deactivate, and UserNotFoundError for an unknown id', async () => {
    const { reactivate, admin, member } = setup();
    await expect(reactivate.execute({ actor: ActorMother.withPermissions([Permissions.usersUpdate]), userId: member.id })).rejects.toBeInstanceOf(
      PermissionDeniedError,
    );
    await expect(reactivate.execute({ actor: admin, userId: 'nobody' })).rejects.toBeInstanceOf(UserNotFoundError);
  });
});

describe('DeleteUserUseCase', () => {
  it('erases the person: not found, e-mail and username free again, tokens ended, invitation gone, one UserDeleted with the id only', async () => {
    const { remove, invite, authenticate, admin, member, users, invitations, outbox, clock } = setup();
    invitations.seed(InvitationMother.valid(member.id).invitation);

    await remove.execute({ actor: admin, userId: member.id });

    await expect(users.findById(member.id)).resolves.toBeNull();
    await expect(users.findByUsername('ada')).resolves.toBeNull();
    await expect(users.existsWithEmail('ada@example.com')).resolves.toBe(false);
    await expect(authenticate.execute({ subject: member.id, tokenVersion: member.tokenVersion })).resolves.toBeNull();
    expect(invitations.forUser(member.id)).toBeUndefined();
    const tombstone = users.erased(member.id)!;
    expect([tombstone.name, tombstone.username, tombstone.passwordHash, tombstone.email]).toEqual([undefined, undefined, undefined, '']);
    expect(outbox.events.map((e) => [e.type, e.data])).toEqual([
      ['UserDeleted', { user_id: member.id, deleted_by: admin.userId, deleted_date: clock.now().toISOString() }],
    ]);
    expect(JSON.stringify(outbox.events)).not.toMatch(/ada/i);

    await expect(invite.execute({ actor: admin, email: 'ADA@example.com' })).resolves.toMatchObject({ userId: expect.any(String) });
  });

  it('erases its second factors with it: the app, its passkeys (name, credential id, key) and its recovery codes (review O)', async () => {
    const { remove, admin, member, unitOfWork, clock } = setup();
    const { mfa } = unitOfWork;
    await mfa.savePending({ id: 'factor-1', userId: member.id, type: 'totp', sealedSecret: 'sealed:SECRET', createdAt: clock.now(), confirmedAt: null, lastUsedStep: null });
    await mfa.confirm(member.id, 'factor-1', clock.now());
    await mfa.addPasskey({ id: 'pk-1', userId: member.id, name: 'Ada’s key', credentialId: 'cred-1', publicKey: 'pk', counter: 0, transports: [], createdAt: clock.now(), lastUsedAt: null });
    await mfa.replaceRecoveryCodes(member.id, ['h1', 'h2'], clock.now(), 'salt');

    await remove.execute({ actor: admin, userId: member.id });

    expect([await mfa.factorsOf(member.id), await mfa.passkeysOf(member.id), await mfa.remainingRecoveryCodes(member.id)]).toEqual([[], [], 0]);
  });

  it('keeps the id: users it invited still name it in invited_by, and it is counted out of the list', async () => {
    const { remove, admin, member, users } = setup();
    const invitedByMember = UserMother.pending({ invitedBy: member.id });
    users.seed(invitedByMember);
    const before = (await users.list({ offset: 0, limit: 100 })).total;

    await remove.execute({ actor: admin, userId: member.id });

    expect((await users.findById(invitedByMember.id))!.invitedBy).toBe(member.id);
    expect(users.erased(member.id)?.id).toBe(member.id);
    expect((await users.list({ offset: 0, limit: 100 })).total).toBe(before - 1);
  });

  it('refuses the actor itself, the last active admin, a deleted user, and an actor without users:delete', async () => {
    const { remove, admin, adminUser, otherAdmin, member } = setup();

    await expect(remove.execute({ actor: admin, userId: adminUser.id })).rejects.toBeInstanceOf(OwnAccountError);
    await remove.execute({ actor: admin, userId: otherAdmin.id });
    await expect(remove.execute({ actor: ActorMother.admin(), userId: adminUser.id })).rejects.toBeInstanceOf(LastActiveAdminError);
    await expect(remove.execute({ actor: admin, userId: otherAdmin.id })).rejects.toBeInstanceOf(UserNotFoundError);
    await expect(remove.execute({ actor: ActorMother.withPermissions([Permissions.usersDeactivate]), userId: member.id })).rejects.toMatchObject({
      missing: [Permissions.usersDelete],
    });
  });

  it('deletes a deactivated admin even when it leaves one active admin', async () => {
    const { remove, deactivate, admin, otherAdmin, users } = setup();
    await deactivate.execute({ actor: admin, userId: otherAdmin.id });

    await remove.execute({ actor: admin, userId: otherAdmin.id });

    await expect(users.findById(otherAdmin.id)).resolves.toBeNull();
  });
});
