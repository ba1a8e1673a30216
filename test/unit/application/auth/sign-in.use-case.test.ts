import { SignInUseCase } from '../../../../src/application/auth/sign-in.use-case';
import { InvalidCredentialsError } from '../../../../src/domain/users/user.errors';
import { FakePasswordHasher, fakeHashOf } from '../../../support/fakes/fake-password-hasher';
import { FakeTokenIssuer } from '../../../support/fakes/fake-token-issuer';
import { fakeSessionIssuer } from '../../../support/fakes/fake-session-issuer';
import { FixedClock } from '../../../support/fakes/fixed-clock';
import { InMemoryRoleRepository } from '../../../support/fakes/in-memory-role.repository';
import { InMemoryLoginAttempts } from '../../../support/fakes/in-memory-login-attempts';
import { auditRecorderFor } from '../../../support/fakes/audit-recorder';
import { InMemoryUserRepository } from '../../../support/fakes/in-memory-user.repository';
import { RoleMother } from '../../../support/mothers/role.mother';
import { DEFAULT_PASSWORD, UserMother } from '../../../support/mothers/user.mother';

const LOCKOUT = { threshold: 3, baseWaitSeconds: 60, maxWaitSeconds: 240 };

function setup() {
  const clock = new FixedClock();
  const hasher = new FakePasswordHasher();
  const tokens = new FakeTokenIssuer(clock);
  const roles = new InMemoryRoleRepository([RoleMother.admin(), RoleMother.member()]);
  const users = new InMemoryUserRepository();
  const { auditRecorder, auditTrail } = auditRecorderFor({ clock });
  const attempts = new InMemoryLoginAttempts(auditTrail);
  const ada = UserMother.joined({
    name: 'Ada Lovelace',
    username: 'Ada.Lovelace',
    email: 'Ada@Example.com',
    role: RoleMother.admin(),
  });
  users.seed(ada);
  const signIn = new SignInUseCase({ auditRecorder, userRepository: users, roleRepository: roles, passwordHasher: hasher, sessionIssuer: fakeSessionIssuer(tokens, clock).sessionIssuer, loginAttempts: attempts, lockoutPolicy: LOCKOUT, clock });
  return { signIn, users, roles, hasher, tokens, ada, attempts, clock, auditTrail };
}

describe('SignInUseCase', () => {
  it('returns name, username, email, the role with its permissions, and an access token for the user', async () => {
    const { signIn, tokens, ada } = setup();

    const result = await signIn.execute({ username: 'Ada.Lovelace', password: DEFAULT_PASSWORD });

    expect(result).toEqual({
      name: 'Ada Lovelace',
      username: 'Ada.Lovelace',
      email: 'Ada@Example.com',
      role: { name: 'admin', permissions: RoleMother.admin().permissions },
      accessToken: tokens.issued[0].token,
      // The family's id (32 hex digits), then the secret (refresh-token-format.ts).
      refreshToken: expect.stringMatching(/^[0-9a-f]{32}fake-refresh-token-1-/),
    });
    expect(tokens.issued).toHaveLength(1);
    expect(tokens.issued[0].subject).toBe(ada.id);
  });

  it('shows no _id in the role and nothing beyond the five fields and the refresh token (no password, no hash)', async () => {
    const { signIn } = setup();

    const result = await signIn.execute({ username: 'Ada.Lovelace', password: DEFAULT_PASSWORD });

    expect(result.role).not.toHaveProperty('_id');
    expect(Object.keys(result).sort()).toEqual(['accessToken', 'email', 'name', 'refreshToken', 'role', 'username']);
    expect(Object.keys(result.role).sort()).toEqual(['name', 'permissions']);
    expect(JSON.stringify(result)).not.toContain(fakeHashOf(DEFAULT_PASSWORD));
    expect(JSON.stringify(result)).not.toContain(DEFAULT_PASSWORD);
  });

  it('gives a member the member role and its (empty) permissions', async () => {
    const { signIn, users } = setup();
    users.seed(UserMother.joined({ username: 'grace', role: RoleMother.member() }));

    const result = await signIn.execute({ username: 'grace', password: DEFAULT_PASSWORD });

    expect(result.role).toEqual({ name: 'member', permissions: [] });
  });

  it.each(['ada.lovelace', 'ADA.LOVELACE', 'aDa.LoVeLaCe'])('compares the username case-insensitively (%s)', async (typed) => {
    const { signIn, ada } = setup();

    const result = await signIn.execute({ username: typed, password: DEFAULT_PASSWORD });

    expect(result.username).toBe(ada.username);
    expect(result.email).toBe(ada.email);
  });

  describe('refuses with one and the same InvalidCredentialsError, after exactly one hash verification', () => {
    it('for an unknown username (verified against no hash, i.e. the dummy one)', async () => {
      const { signIn, hasher, tokens } = setup();

      await expect(signIn.execute({ username: 'nobody', password: DEFAULT_PASSWORD })).rejects.toBeInstanceOf(
        InvalidCredentialsError,
      );

      expect(hasher.verifications).toEqual([{ plain: DEFAULT_PASSWORD, hash: undefined }]);
      expect(tokens.issued).toHaveLength(0);
    });

    it('for a wrong password (verified against the stored hash)', async () => {
      const { signIn, hasher, tokens } = setup();

      await expect(signIn.execute({ username: 'Ada.Lovelace', password: 'not the password at all' })).rejects.toBeInstanceOf(
        InvalidCredentialsError,
      );

      expect(hasher.verifications).toEqual([{ plain: 'not the password at all', hash: fakeHashOf(DEFAULT_PASSWORD) }]);
      expect(tokens.issued).toHaveLength(0);
    });

    it('for a pending invitee, whose e-mail is not a username', async () => {
      const { signIn, users, hasher, tokens } = setup();
      const pending = UserMother.pending({ email: 'pending@example.com' });
      users.seed(pending);

      // A pending user has no username to sign in with; its e-mail must not work as one either.
      await expect(signIn.execute({ username: 'pending@example.com', password: DEFAULT_PASSWORD })).rejects.toBeInstanceOf(
        InvalidCredentialsError,
      );

      expect(hasher.verifyCalls).toBe(1);
      expect(tokens.issued).toHaveLength(0);
    });

    it('for a user that has a username and a stored hash but never joined, even with the right password', async () => {
      const { signIn, users, hasher, tokens } = setup();
      users.seed(UserMother.pending({ username: 'halfway', passwordHash: fakeHashOf(DEFAULT_PASSWORD) }));

      await expect(signIn.execute({ username: 'halfway', password: DEFAULT_PASSWORD })).rejects.toBeInstanceOf(
        InvalidCredentialsError,
      );

      expect(hasher.verifyCalls).toBe(1);
      expect(tokens.issued).toHaveLength(0);
    });

    it('so the three failures cannot be told apart by error code or message', async () => {
      const { signIn, users } = setup();
      users.seed(UserMother.pending({ username: 'pending.one' }));
      const failures = await Promise.all([
        signIn.execute({ username: 'nobody', password: DEFAULT_PASSWORD }).catch((e: unknown) => e),
        signIn.execute({ username: 'Ada.Lovelace', password: 'wrong password!' }).catch((e: unknown) => e),
        signIn.execute({ username: 'pending.one', password: DEFAULT_PASSWORD }).catch((e: unknown) => e),
      ]);

      const shapes = failures.map((e) => {
        const error = e as InvalidCredentialsError;
        return { type: error.constructor, code: error.code, message: error.message, details: error.details };
      });
      expect(shapes[0].code).toBe('INVALID_CREDENTIALS');
      expect(shapes[1]).toEqual(shapes[0]);
      expect(shapes[2]).toEqual(shapes[0]);
    });
  });

  it('refuses a joined user whose role no longer exists, without issuing a token', async () => {
    const { signIn, roles, tokens } = setup();
    roles.remove(RoleMother.admin().id);

    await expect(signIn.execute({ username: 'Ada.Lovelace', password: DEFAULT_PASSWORD })).rejects.toBeInstanceOf(
      InvalidCredentialsError,
    );
    expect(tokens.issued).toHaveLength(0);
  });

  describe('lockout (threshold 3, wait 60 s doubling to 240 s)', () => {
    const wrong = (signIn: SignInUseCase) =>
      signIn.execute({ username: 'Ada.Lovelace', password: 'not the password at all' }).catch((e: unknown) => e);

    it('evaluates exactly 3 wrong passwords out of 20 parallel ones, then refuses even the right one, still hashing', async () => {
      const { signIn, hasher } = setup();

      const errors = await Promise.all(Array.from({ length: 20 }, () => wrong(signIn)));

      expect(errors.every((e) => e instanceof InvalidCredentialsError)).toBe(true);
      expect(hasher.verifications.filter((v) => v.hash !== undefined)).toHaveLength(3);
      expect(hasher.verifyCalls).toBe(20);
      await expect(signIn.execute({ username: 'Ada.Lovelace', password: DEFAULT_PASSWORD })).rejects.toBeInstanceOf(
        InvalidCredentialsError,
      );
      expect(hasher.verifyCalls).toBe(21);
      expect(hasher.verifications[20].hash).toBeUndefined();
    });

    it('lets the owner in after the wait, and the wait doubles with each lockout up to the maximum', async () => {
      const { signIn, clock, attempts } = setup();
      const lockedFor: number[] = [];
      for (let round = 0; round < 4; round += 1) {
        for (let i = 0; i < 3; i += 1) await wrong(signIn);
        const until = attempts.counters('ada.lovelace').lockedUntil!;
        lockedFor.push((until.getTime() - clock.now().getTime()) / 1000);
        clock.advance(until.getTime() - clock.now().getTime() - 1);
        await expect(signIn.execute({ username: 'Ada.Lovelace', password: DEFAULT_PASSWORD })).rejects.toBeInstanceOf(
          InvalidCredentialsError,
        );
        clock.advance(1);
      }
      expect(lockedFor).toEqual([60, 120, 240, 240]);

      await expect(signIn.execute({ username: 'Ada.Lovelace', password: DEFAULT_PASSWORD })).resolves.toMatchObject({
        username: 'Ada.Lovelace',
      });
      expect(attempts.counters('ada.lovelace')).toEqual({ failures: 0, lockedUntil: null, lockouts: 0 });
    });

    it('turns an allowance spent by claims whose outcome never came into the lock’s wait, so it never refuses for ever', async () => {
      const { signIn, clock, attempts, auditTrail } = setup();
      await wrong(signIn);
      await wrong(signIn);
      // The third evaluation is claimed, then its process stops before the verdict: no failure, no success reported.
      expect(await attempts.claim('ada.lovelace', clock.now(), LOCKOUT)).toBe(3);

      // The next attempt is refused (the allowance is spent) and locks the account for the first wait.
      await expect(signIn.execute({ username: 'Ada.Lovelace', password: DEFAULT_PASSWORD })).rejects.toBeInstanceOf(InvalidCredentialsError);
      expect(attempts.counters('ada.lovelace')).toEqual({ failures: 0, lockedUntil: new Date(clock.now().getTime() + 60_000), lockouts: 1 });
      expect(auditTrail.entries.slice(-2).map((e) => [e.action, e.code])).toEqual([['auth.signin_failed', 'locked'], ['auth.locked_out', 'threshold_reached']]);

      clock.advance(60_000);
      await expect(signIn.execute({ username: 'Ada.Lovelace', password: DEFAULT_PASSWORD })).resolves.toMatchObject({ username: 'Ada.Lovelace' });
    });

    it('starts the count over after a success', async () => {
      const { signIn, hasher } = setup();
      await wrong(signIn);
      await wrong(signIn);
      await signIn.execute({ username: 'Ada.Lovelace', password: DEFAULT_PASSWORD });
      await wrong(signIn);
      await wrong(signIn);

      await expect(signIn.execute({ username: 'Ada.Lovelace', password: DEFAULT_PASSWORD })).resolves.toBeDefined();
      expect(hasher.verifications.filter((v) => v.hash !== undefined)).toHaveLength(6);
    });

    it('puts the token version of the user in the token', async () => {
      const { signIn, users, tokens, ada } = setup();
      await users.incrementTokenVersion(ada.id);
      await users.incrementTokenVersion(ada.id);

      await signIn.execute({ username: 'Ada.Lovelace', password: DEFAULT_PASSWORD });

      expect(tokens.issued[0].tokenVersion).toBe(2);
    });
  });
});
