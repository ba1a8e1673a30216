import { SignInUseCase } from '../../../../src/application/auth/sign-in.use-case';
import { UpdateUserUseCase } from '../../../../src/application/users/update-user.use-case';
import { AuditSecretFieldError, type AuditEntry } from '../../../../src/domain/audit/audit-entry';
import { InvalidCredentialsError } from '../../../../src/domain/users/user.errors';
import { auditRecorderFor, TEST_ORIGIN, TEST_PSEUDONYMS } from '../../../support/fakes/audit-recorder';
import { FakePasswordHasher, fakeHashOf } from '../../../support/fakes/fake-password-hasher';
import { fakeSessionIssuer } from '../../../support/fakes/fake-session-issuer';
import { FakeTokenIssuer } from '../../../support/fakes/fake-token-issuer';
import { FixedClock } from '../../../support/fakes/fixed-clock';
import { InMemoryAuditTrail } from '../../../support/fakes/in-memory-audit-trail';
import { InMemoryLoginAttempts } from '../../../support/fakes/in-memory-login-attempts';
import { InMemoryOutbox } from '../../../support/fakes/in-memory-outbox';
import { InMemoryRoleRepository } from '../../../support/fakes/in-memory-role.repository';
import { InMemoryUnitOfWork } from '../../../support/fakes/in-memory-unit-of-work';
import { InMemoryUserRepository } from '../../../support/fakes/in-memory-user.repository';
import { SequentialIdGenerator } from '../../../support/fakes/sequential-id-generator';
import { ActorMother } from '../../../support/mothers/actor.mother';
import { RoleMother } from '../../../support/mothers/role.mother';
import { DEFAULT_PASSWORD, UserMother } from '../../../support/mothers/user.mother';

const LOCKOUT = { threshold: 2, baseWaitSeconds: 60, maxWaitSeconds: 240 };

function signInWorld() {
  const clock = new FixedClock();
  const trail = new InMemoryAuditTrail();
  const { auditRecorder } = auditRecorderFor({ clock, auditTrail: trail });
  const users = new InMemoryUserRepository();
  const ada = UserMother.joined({ username: 'ada', role: RoleMother.admin() });
  const invitee = UserMother.pending({ email: 'grace@example.com', role: RoleMother.member(), username: 'grace', passwordHash: fakeHashOf('x') });
  users.seed(ada, invitee);
  const attempts = new InMemoryLoginAttempts(trail);
  const signIn = new SignInUseCase({
    auditRecorder,
    userRepository: users,
    roleRepository: new InMemoryRoleRepository([RoleMother.admin(), RoleMother.member()]),
    passwordHasher: new FakePasswordHasher(),
    sessionIssuer: fakeSessionIssuer(new FakeTokenIssuer(clock), clock).sessionIssuer,
    loginAttempts: attempts,
    lockoutPolicy: LOCKOUT,
    clock,
  });
  return { signIn, trail, ada, clock };
}

const brief = (entries: readonly AuditEntry[]) => entries.map((e) => [e.action, e.outcome, e.code]);

describe('the audit trail of sign-ins', () => {
  it('records a success with the user as actor and target, and where the request came from', async () => {
    const { signIn, trail, ada, clock } = signInWorld();

    await signIn.execute({ username: 'ADA', password: DEFAULT_PASSWORD });

    expect(trail.entries).toEqual([
      expect.objectContaining({
        action: 'auth.signin_succeeded',
        outcome: 'success',
        occurredAt: clock.now().getTime(),
        actor: { type: 'user', id: ada.id, name: 'ada' },
        target: { type: 'user', id: ada.id, snapshot: 'ada' },
        source: { address: TEST_ORIGIN.address, userAgent: TEST_ORIGIN.userAgent },
        requestId: TEST_ORIGIN.requestId,
      }),
    ]);
  });

  it('keeps the internal reason of each refusal that the caller never sees', async () => {
    const { signIn, trail } = signInWorld();
    const attempt = (username: string, password: string) => expect(signIn.execute({ username, password })).rejects.toBeInstanceOf(InvalidCredentialsError);

    await attempt('nobody', 'whatever it is');
    await attempt('grace', 'x');
    await attempt('ada', 'wrong password');

    expect(brief(trail.entries)).toEqual([
      ['auth.signin_failed', 'failure', 'unknown_user'],
      ['auth.signin_failed', 'failure', 'not_joined'],
      ['auth.signin_failed', 'failure', 'wrong_password'],
    ]);
    // An unknown name is kept as its pseudonym: what was typed may be a password typed into the wrong field.
    expect(trail.entries[0]!.target).toEqual({ type: 'user', id: null, snapshot: `typed:${TEST_PSEUDONYMS.of('nobody')}` });
    expect(JSON.stringify(trail.entries)).not.toContain('nobody');
    expect(trail.entries[0]!.actor).toEqual({ type: 'anonymous', id: null, name: null });
  });

  it('records the lockout with the refusal that caused it, then refusals as locked', async () => {
    const { signIn, trail } = signInWorld();
    for (let i = 0; i < 3; i += 1) await signIn.execute({ username: 'ada', password: 'wrong' }).catch(() => undefined);

    expect(brief(trail.entries)).toEqual([
      ['auth.signin_failed', 'failure', 'wrong_password'],
      ['auth.signin_failed', 'failure', 'wrong_password'],
      ['auth.locked_out', 'success', 'threshold_reached'],
      ['auth.signin_failed', 'failure', 'locked'],
    ]);
    expect(trail.entries[2]!.changes).toEqual([{ field: 'locked_until', before: null, after: expect.any(String) }]);
  });

  it('never writes the password or its hash', async () => {
    const { signIn, trail } = signInWorld();
    await signIn.execute({ username: 'ada', password: 'not the password at all' }).catch(() => undefined);
    await signIn.execute({ username: 'ada', password: DEFAULT_PASSWORD });

    const text = JSON.stringify(trail.entries);
    for (const secret of ['not the password at all', DEFAULT_PASSWORD, fakeHashOf(DEFAULT_PASSWORD)]) expect(text).not.toContain(secret);
  });
});

describe('the audit trail of user changes', () => {
  function world() {
    const clock = new FixedClock();
    const users = new InMemoryUserRepository();
    const roles = new InMemoryRoleRepository([RoleMother.admin(), RoleMother.member()]);
    // Every closure runs twice: the rolled-back attempt's entry must not survive.
    const unitOfWork = new InMemoryUnitOfWork({ users, outbox: new InMemoryOutbox(), roles, retryEveryRun: true });
    const { auditRecorder } = auditRecorderFor({ clock, auditTrail: unitOfWork.audit });
    const root = UserMother.joined({ username: 'root', role: RoleMother.admin() });
    const ada = UserMother.joined({ username: 'ada', role: RoleMother.member() });
    users.seed(root, ada);
    const update = new UpdateUserUseCase({ auditRecorder, roleRepository: roles, unitOfWork, clock, idGenerator: new SequentialIdGenerator(0xbe) });
    return { update, unitOfWork, root, ada };
  }

  it('writes one role change, from → to, in the transaction of the change, naming the actor', async () => {
    const { update, unitOfWork, root, ada } = world();

    await update.execute({ actor: ActorMother.admin(root.id), userId: ada.id, role: 'admin' });

    expect(unitOfWork.audit.entries).toEqual([
      expect.objectContaining({
        action: 'user.role_changed',
        outcome: 'success',
        actor: { type: 'user', id: root.id, name: 'root' },
        target: { type: 'user', id: ada.id, snapshot: 'ada' },
        changes: [{ field: 'role', before: 'member', after: 'admin' }],
      }),
    ]);
  });

  it('writes a refusal on its own, with its code, when the change is refused (and nothing else)', async () => {
    const { update, unitOfWork, ada } = world();
    const member = { userId: 'someone', permissions: ['users:read'] };

    await expect(update.execute({ actor: member, userId: ada.id, role: 'admin' })).rejects.toThrow();

    expect(brief(unitOfWork.audit.entries)).toEqual([['user.role_changed', 'failure', 'PERMISSION_DENIED']]);
    expect(unitOfWork.audit.entries[0]!.actor).toEqual({ type: 'user', id: 'someone', name: null });
  });

  it('refuses an entry that would record a secret field, whatever its value', () => {
    const { auditRecorder } = auditRecorderFor();
    for (const field of ['password', 'password_hash', 'refresh_token', 'client_secret', 'invitation_link', 'client_assertion']) {
      expect(() => auditRecorder.entry({ action: 'user.updated', actor: { type: 'anonymous', id: null, name: null }, changes: [{ field, before: null, after: 'x' }] })).toThrow(
        AuditSecretFieldError,
      );
    }
  });
});
