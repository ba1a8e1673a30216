import { SignInUseCase } from '../../../../src/application/auth/sign-in.use-case';
import { CompleteMfaSignInUseCase } from '../../../../src/application/mfa/complete-mfa-sign-in.use-case';
import { MfaChallenges } from '../../../../src/application/mfa/mfa-challenges';
import { MfaRequiredError } from '../../../../src/application/mfa/mfa.errors';
import { MfaPolicy } from '../../../../src/application/mfa/mfa-policy';
import type { SecretCipher } from '../../../../src/application/ports/secret-cipher.port';
import type { Totp } from '../../../../src/application/ports/totp.port';
import { InvalidMfaCodeError } from '../../../../src/domain/mfa/mfa';
import { InvalidCredentialsError } from '../../../../src/domain/users/user.errors';
import { auditRecorderFor } from '../../../support/fakes/audit-recorder';
import { FakePasswordHasher } from '../../../support/fakes/fake-password-hasher';
import { FakeSecretTokens } from '../../../support/fakes/fake-secret-tokens';
import { fakeSessionIssuer } from '../../../support/fakes/fake-session-issuer';
import { FakeTokenIssuer } from '../../../support/fakes/fake-token-issuer';
import { FixedClock } from '../../../support/fakes/fixed-clock';
import { InMemoryLoginAttempts } from '../../../support/fakes/in-memory-login-attempts';
import { InMemoryMfaStore } from '../../../support/fakes/in-memory-mfa.store';
import { InMemoryRoleRepository } from '../../../support/fakes/in-memory-role.repository';
import { InMemoryUserRepository } from '../../../support/fakes/in-memory-user.repository';
import { RoleMother } from '../../../support/mothers/role.mother';
import { DEFAULT_PASSWORD, UserMother } from '../../../support/mothers/user.mother';

const LOCKOUT = { threshold: 4, baseWaitSeconds: 60, maxWaitSeconds: 240 };

/** A code is its time step, six digits: accepted within one step of now and after the last used one. */
const fakeTotp: Totp = {
  newSecret: () => 'SECRET',
  uri: (secret, account) => `otpauth://totp/x:${account}?secret=${secret}`,
  qrCode: async () => 'data:image/png;base64,',
  verify: async (_secret, code, now, after) => {
    const step = Number(code);
    const current = Math.floor(now.getTime() / 30_000) % 1_000_000;
    return Math.abs(step - current) <= 1 && (after === null || step > after) ? step : null;
  },
};
const plainCipher: SecretCipher = { seal: (s) => `sealed:${s}`, open: (s) => s.replace(/^sealed:/, '') };

function setup(requiredPermissions: string[] = []) {
  const clock = new FixedClock();
  const tokens = new FakeTokenIssuer(clock);
  const roles = new InMemoryRoleRepository([RoleMother.admin(), RoleMother.member()]);
  const users = new InMemoryUserRepository();
  const { auditRecorder, auditTrail } = auditRecorderFor({ clock });
  const loginAttempts = new InMemoryLoginAttempts(auditTrail);
  const mfaStore = new InMemoryMfaStore();
  const secretTokens = new FakeSecretTokens('fake-mfa-token');
  const { sessionIssuer } = fakeSessionIssuer(tokens, clock);
  const ada = UserMother.joined({ username: 'ada', email: 'ada@example.com', role: RoleMother.admin() });
  users.seed(ada);
  const common = { auditRecorder, userRepository: users, roleRepository: roles, sessionIssuer, loginAttempts, lockoutPolicy: LOCKOUT, clock };
  const mfaPolicy = new MfaPolicy({ mfaStore, roleRepository: roles, mfaRequiredPermissions: requiredPermissions });
  const signIn = new SignInUseCase({ ...common, passwordHasher: new FakePasswordHasher(), mfaChallenges: new MfaChallenges({ mfaStore, secretTokens, clock }), mfaPolicy });
  const complete = new CompleteMfaSignInUseCase({ ...common, mfaStore, totp: fakeTotp, secretCipher: plainCipher, secretTokens });
  const currentStep = () => Math.floor(clock.now().getTime() / 30_000) % 1_000_000;
  const code = (offset = 0) => String(currentStep() + offset).padStart(6, '0');
  const enroll = async () => {
    await mfaStore.savePending({ id: 'factor-1', userId: ada.id, type: 'totp', sealedSecret: 'sealed:SECRET', createdAt: clock.now(), confirmedAt: null, lastUsedStep: null });
    await mfaStore.confirm(ada.id, 'factor-1', clock.now());
  };
  const ticket = async () => {
    const error = await signIn.execute({ username: 'ada', password: DEFAULT_PASSWORD }).then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(MfaRequiredError);
    return (error as MfaRequiredError).mfaToken;
  };
  return { signIn, complete, tokens, ada, enroll, ticket, code, clock };
}

describe('signing in with a second factor (#24)', () => {
  it('a user without a factor gets its session from the password alone', async () => {
    const { signIn, tokens } = setup();
    await expect(signIn.execute({ username: 'ada', password: DEFAULT_PASSWORD })).resolves.toMatchObject({ username: 'ada' });
    expect(tokens.issued).toHaveLength(1);
  });

  it('with a factor: the password answers a ticket and no token; the ticket and a current code answer the session', async () => {
    const { complete, tokens, enroll, ticket, code } = setup();
    await enroll();
    const mfaToken = await ticket();
    expect(tokens.issued).toHaveLength(0);
    await expect(complete.execute({ mfaToken, code: code(1) })).resolves.toMatchObject({ username: 'ada', accessToken: tokens.issued[0]?.token ?? expect.any(String) });
    expect(tokens.issued).toHaveLength(1);
  });

  it('refuses a code of a step already used, and a code two steps away', async () => {
    const { complete, enroll, ticket, code } = setup();
    await enroll();
    await complete.execute({ mfaToken: await ticket(), code: code(0) });
    // One ticket, three wrong codes: it stays usable until it succeeds (the lockout bounds the guesses).
    const mfaToken = await ticket();
    await expect(complete.execute({ mfaToken, code: code(0) })).rejects.toBeInstanceOf(InvalidMfaCodeError);
    await expect(complete.execute({ mfaToken, code: code(-1) })).rejects.toBeInstanceOf(InvalidMfaCodeError);
    await expect(complete.execute({ mfaToken, code: code(2) })).rejects.toBeInstanceOf(InvalidMfaCodeError);
  });

  it('counts password steps and wrong codes together toward the lockout; a right password does not reset it', async () => {
    const { signIn, complete, enroll, ticket, code } = setup();
    await enroll();
    // Threshold 4: password (1), wrong code (2), password (3), wrong code (4): locked.
    await expect(complete.execute({ mfaToken: await ticket(), code: code(-5) })).rejects.toBeInstanceOf(InvalidMfaCodeError);
    const second = await ticket();
    await expect(complete.execute({ mfaToken: second, code: code(-5) })).rejects.toBeInstanceOf(InvalidMfaCodeError);
    await expect(signIn.execute({ username: 'ada', password: DEFAULT_PASSWORD })).rejects.toBeInstanceOf(InvalidCredentialsError);
    // Even the right code on a live ticket is refused while locked.
    await expect(complete.execute({ mfaToken: second, code: code(0) })).rejects.toBeInstanceOf(InvalidMfaCodeError);
  });

  it('MFA_REQUIRED_PERMISSIONS: a role holding one, without a factor, gets an enrollment-only token; a role without one a whole token', async () => {
    const { signIn, tokens } = setup(['users:delete']);
    await signIn.execute({ username: 'ada', password: DEFAULT_PASSWORD });
    expect(tokens.issued[0].enrollmentOnly).toBe(true);
    const { signIn: other, tokens: otherTokens } = setup(['no:such']);
    await other.execute({ username: 'ada', password: DEFAULT_PASSWORD });
    expect(otherTokens.issued[0].enrollmentOnly).toBeUndefined();
  });
});
