import { auditRecorderFor } from '../../../support/fakes/audit-recorder';
import { ChangeOwnPasswordUseCase } from '../../../../src/application/auth/change-own-password.use-case';
import { GetOwnAccountUseCase } from '../../../../src/application/auth/get-own-account.use-case';
import { WrongCurrentPasswordError } from '../../../../src/application/auth/session.errors';
import { ValidationError } from '../../../../src/domain/shared/domain-error';
import { fakeSessionIssuer } from '../../../support/fakes/fake-session-issuer';
import { FakePasswordHasher, fakeHashOf } from '../../../support/fakes/fake-password-hasher';
import { FakeTokenIssuer } from '../../../support/fakes/fake-token-issuer';
import { FixedClock } from '../../../support/fakes/fixed-clock';
import { InMemoryLoginAttempts } from '../../../support/fakes/in-memory-login-attempts';
import { InMemoryOutbox } from '../../../support/fakes/in-memory-outbox';
import { InMemoryRoleRepository } from '../../../support/fakes/in-memory-role.repository';
import { InMemoryUnitOfWork } from '../../../support/fakes/in-memory-unit-of-work';
import { InMemoryUserRepository } from '../../../support/fakes/in-memory-user.repository';
import { RoleMother } from '../../../support/mothers/role.mother';
import { DEFAULT_PASSWORD, UserMother } from '../../../support/mothers/user.mother';

const LOCKOUT = { threshold: 3, baseWaitSeconds: 60, maxWaitSeconds: 240 };
const NEW_PASSWORD = 'a brand new passphrase';

function setup() {
  const clock = new FixedClock();
  const users = new InMemoryUserRepository();
  const outbox = new InMemoryOutbox();
  const unitOfWork = new InMemoryUnitOfWork({ users, outbox, retryEveryRun: true });
  const hasher = new FakePasswordHasher();
  const attempts = new InMemoryLoginAttempts();
  const tokens = new FakeTokenIssuer(clock);
  const { sessionIssuer, refreshTokenStore } = fakeSessionIssuer(tokens, clock);
  const change = new ChangeOwnPasswordUseCase({ auditRecorder: auditRecorderFor().auditRecorder,
    userRepository: users,
    unitOfWork,
    passwordHasher: hasher,
    commonPasswords: { includes: (p) => p === 'password12345' },
    loginAttempts: attempts,
    lockoutPolicy: LOCKOUT,
    sessionIssuer,
    clock,
  });
  const ada = UserMother.joined({ username: 'Ada', role: RoleMother.admin() });
  users.seed(ada);
  const actor = { userId: ada.id, permissions: [] };
  return { clock, users, outbox, hasher, attempts, tokens, store: refreshTokenStore, change, ada, actor };
}

describe('ChangeOwnPasswordUseCase', () => {
  it('sets the new password, bumps the token version once and starts a session at the new version', async () => {
    const { change, users, ada, actor, tokens, store, outbox } = setup();

    const session = await change.execute({ actor, currentPassword: DEFAULT_PASSWORD, newPassword: NEW_PASSWORD });

    const stored = (await users.findById(ada.id))!;
    expect(stored.passwordHash).toBe(fakeHashOf(NEW_PASSWORD));
    expect(stored.tokenVersion).toBe(1);
    expect(stored.updatedBy).toBe(ada.id);
    expect(tokens.issued.at(-1)).toMatchObject({ subject: ada.id, tokenVersion: 1, token: session.accessToken });
    expect(store.all()).toEqual([expect.objectContaining({ userId: ada.id, tokenVersion: 1 })]);
    expect(outbox.events).toEqual([]);
  });

  it('refuses a wrong current password, changes nothing and counts it against the lockout', async () => {
    const { change, users, ada, actor, attempts } = setup();

    await expect(change.execute({ actor, currentPassword: 'not the password', newPassword: NEW_PASSWORD })).rejects.toBeInstanceOf(WrongCurrentPasswordError);

    expect((await users.findById(ada.id))!.passwordHash).toBe(fakeHashOf(DEFAULT_PASSWORD));
    expect((await users.findById(ada.id))!.tokenVersion).toBe(0);
    expect(attempts.counters('ada').failures).toBe(1);
  });

  it('answers a locked account like a wrong password, even with the right one, after the same hash work', async () => {
    const { change, actor, hasher } = setup();
    for (let i = 0; i < LOCKOUT.threshold; i++) {
      await expect(change.execute({ actor, currentPassword: 'wrong', newPassword: NEW_PASSWORD })).rejects.toBeInstanceOf(WrongCurrentPasswordError);
    }
    const before = hasher.verifyCalls;

    await expect(change.execute({ actor, currentPassword: DEFAULT_PASSWORD, newPassword: NEW_PASSWORD })).rejects.toBeInstanceOf(WrongCurrentPasswordError);
    expect(hasher.verifyCalls).toBe(before + 1);
  });

  it.each([
    ['too short', 'short'],
    ['common', 'password12345'],
  ])('refuses a %s new password as new_password, before checking the current one', async (_what, newPassword) => {
    const { change, actor, hasher } = setup();

    const error = await change.execute({ actor, currentPassword: DEFAULT_PASSWORD, newPassword }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).problems.map((p) => p.field)).toEqual(['new_password']);
    expect(hasher.verifyCalls).toBe(0);
  });
});

describe('ChangeOwnPasswordUseCase and the account\'s own names', () => {
  it('refuses a new password that is one\'s own e-mail address, as new_password, before checking the current one', async () => {
    const { change, actor, ada, hasher } = setup();

    const error = await change.execute({ actor, currentPassword: DEFAULT_PASSWORD, newPassword: ada.email.toUpperCase() }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).problems).toEqual([{ field: 'new_password', message: 'must not be your username or e-mail address' }]);
    expect(hasher.verifyCalls).toBe(0);
  });
});

describe('GetOwnAccountUseCase', () => {
  it('shows the caller as GET /v1/users/{id} does, with no permission needed', async () => {
    const users = new InMemoryUserRepository();
    const roles = new InMemoryRoleRepository([RoleMother.admin(), RoleMother.member()]);
    const grace = UserMother.joined({ username: 'grace', role: RoleMother.member() });
    users.seed(grace);

    const { user, version } = await new GetOwnAccountUseCase({ userRepository: users, roleRepository: roles }).execute({
      actor: { userId: grace.id, permissions: [] },
    });

    expect(user).toMatchObject({ _id: grace.id, username: 'grace', status: 'active', role: { name: 'member', permissions: [] } });
    expect(version).toBe(1);
    expect(JSON.stringify(user)).not.toContain('fake-argon2id');
  });
});
