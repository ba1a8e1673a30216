import { SignInUseCase } from '../../../../src/application/auth/sign-in.use-case';
import { CompleteMfaSignInUseCase } from '../../../../src/application/mfa/complete-mfa-sign-in.use-case';
import { OwnFactorProof } from '../../../../src/application/mfa/own-factor-proof';
import { MfaChallenges } from '../../../../src/application/mfa/mfa-challenges';
import { hashRecoveryCodes } from '../../../../src/application/mfa/mfa-codes';
import { MfaRequiredError } from '../../../../src/application/mfa/mfa.errors';
import { MfaPolicy } from '../../../../src/application/mfa/mfa-policy';
import { PasskeyCeremonies } from '../../../../src/application/mfa/passkey-ceremonies';
import { PasskeySignInOptionsUseCase } from '../../../../src/application/mfa/passkey-sign-in-options.use-case';
import type { MfaStore } from '../../../../src/application/ports/mfa-store.port';
import type { SecretCipher } from '../../../../src/application/ports/secret-cipher.port';
import type { Totp } from '../../../../src/application/ports/totp.port';
import type { WebAuthn } from '../../../../src/application/ports/webauthn.port';
import { auditRecorderFor } from '../../../support/fakes/audit-recorder';
import { FakePasswordHasher } from '../../../support/fakes/fake-password-hasher';
import { FakeRecoveryCodeHasher } from '../../../support/fakes/fake-recovery-code-hasher';
import { FakeSecretTokens } from '../../../support/fakes/fake-secret-tokens';
import { FakeSignInTickets } from '../../../support/fakes/fake-sign-in-tickets';
import { fakeSessionIssuer } from '../../../support/fakes/fake-session-issuer';
import { FakeTokenIssuer } from '../../../support/fakes/fake-token-issuer';
import { FixedClock } from '../../../support/fakes/fixed-clock';
import { InMemoryLoginAttempts } from '../../../support/fakes/in-memory-login-attempts';
import { InMemoryMfaStore } from '../../../support/fakes/in-memory-mfa.store';
import { InMemoryRoleRepository } from '../../../support/fakes/in-memory-role.repository';
import { InMemoryUserRepository } from '../../../support/fakes/in-memory-user.repository';
import { RoleMother } from '../../../support/mothers/role.mother';
import { DEFAULT_PASSWORD, UserMother } from '../../../support/mothers/user.mother';

export const LOCKOUT = { threshold: 4, baseWaitSeconds: 60, maxWaitSeconds: 240 };

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

/** An assertion in these tests: the credential it names, the challenge it answers, whether its signature holds, its counter. */
export interface FakeAssertion {
  id: string;
  challenge: string;
  valid: boolean;
  counter: number;
}

/** WebAuthn without cryptography: options list the credentials and a fresh challenge; an assertion says whether it verifies. */
function fakeWebAuthn(): WebAuthn {
  let n = 0;
  const challenge = () => `challenge-${(n += 1)}`;
  return {
    registrationOptions: async () => {
      const c = challenge();
      return { options: { challenge: c }, challenge: c };
    },
    authenticationOptions: async (allow) => {
      const c = challenge();
      return { options: { challenge: c, rpId: 'id.example.test', allowCredentials: allow.map((p) => ({ id: p.credentialId, type: 'public-key' })) }, challenge: c };
    },
    challengeOf: (response) => (response as FakeAssertion).challenge ?? null,
    credentialIdOf: (response) => (response as FakeAssertion).id ?? null,
    verifyRegistration: async () => null,
    verifyAuthentication: async (response) => {
      const { valid, counter } = response as FakeAssertion;
      return valid ? { ok: true, counter } : { ok: false, reason: 'invalid_assertion' };
    },
  };
}

/** The store's calls by name, in order: what "the same database work" means in these tests. */
function recorded(store: InMemoryMfaStore): { store: MfaStore; calls: string[] } {
  const calls: string[] = [];
  const proxy = new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(String(name));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: proxy, calls };
}

/** Ada (an admin) with the password step, the second step and the options route wired to in-memory fakes. */
export function setup(requiredPermissions: string[] = [], lockoutPolicy = LOCKOUT) {
  const clock = new FixedClock();
  const tokens = new FakeTokenIssuer(clock);
  const roles = new InMemoryRoleRepository([RoleMother.admin(), RoleMother.member()]);
  const users = new InMemoryUserRepository();
  const { auditRecorder, auditTrail } = auditRecorderFor({ clock });
  const loginAttempts: InMemoryLoginAttempts = new InMemoryLoginAttempts(auditTrail, () => memory);
  const memory = new InMemoryMfaStore(users, loginAttempts);
  const signInTickets = new FakeSignInTickets();
  const { store: mfaStore, calls: storeCalls } = recorded(memory);
  const secretTokens = new FakeSecretTokens('fake-mfa-token');
  const recoveryCodeHasher = new FakeRecoveryCodeHasher();
  const { sessionIssuer } = fakeSessionIssuer(tokens, clock);
  const ada = UserMother.joined({ username: 'ada', email: 'ada@example.com', role: RoleMother.admin() });
  users.seed(ada);
  const passkeyCeremonies = new PasskeyCeremonies({ mfaStore, webAuthn: fakeWebAuthn(), secretTokens, clock });
  const common = { auditRecorder, userRepository: users, roleRepository: roles, sessionIssuer, loginAttempts, lockoutPolicy, clock };
  const mfaPolicy = new MfaPolicy({ mfaStore, roleRepository: roles, mfaRequiredPermissions: requiredPermissions });
  const mfaChallenges = new MfaChallenges({ mfaStore, signInTickets, clock, passkeyCeremonies });
  const signIn = new SignInUseCase({ ...common, passwordHasher: new FakePasswordHasher(), mfaChallenges, mfaPolicy });
  const complete = new CompleteMfaSignInUseCase({ ...common, mfaStore, totp: fakeTotp, secretCipher: plainCipher, secretTokens, recoveryCodeHasher, signInTickets, passkeyCeremonies });
  const options = new PasskeySignInOptionsUseCase({ mfaStore, signInTickets, passkeyCeremonies, clock });
  const ownFactorProof = new OwnFactorProof({ auditRecorder, passwordHasher: new FakePasswordHasher(), loginAttempts, lockoutPolicy, mfaStore, totp: fakeTotp, secretCipher: plainCipher, clock });
  const currentStep = () => Math.floor(clock.now().getTime() / 30_000) % 1_000_000;
  const code = (offset = 0) => String(currentStep() + offset).padStart(6, '0');
  const enroll = async () => {
    await mfaStore.savePending({ id: 'factor-1', userId: ada.id, type: 'totp', sealedSecret: 'sealed:SECRET', createdAt: clock.now(), confirmedAt: null, lastUsedStep: null });
    await mfaStore.confirm(ada.id, 'factor-1', clock.now());
  };
  const recoveryCodes = async (...codes: string[]) => {
    const { salt, hashes } = await hashRecoveryCodes(recoveryCodeHasher, codes);
    await mfaStore.replaceRecoveryCodes(ada.id, hashes, clock.now(), salt);
  };
  /** Codes as stored before salts (2026-12-06): SHA-256 of their text, no salt. */
  const unsaltedRecoveryCodes = async (...codes: string[]) => mfaStore.replaceRecoveryCodes(ada.id, codes.map((c) => secretTokens.hash(`recovery:${c}`)), clock.now());
  const addPasskey = async (credentialId = 'cred-1') =>
    mfaStore.addPasskey({ id: `pk-${credentialId}`, userId: ada.id, name: 'Key', credentialId, publicKey: 'pk', counter: 0, transports: ['usb'], createdAt: clock.now(), lastUsedAt: null });
  /** The password step's MfaRequiredError (the password given, the right one by default). */
  const challenged = async (password = DEFAULT_PASSWORD): Promise<MfaRequiredError> => {
    const error = await signIn.execute({ username: 'ada', password }).then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(MfaRequiredError);
    return error as MfaRequiredError;
  };
  const ticket = async (password = DEFAULT_PASSWORD) => (await challenged(password)).mfaToken;
  return { signIn, complete, options, ownFactorProof, tokens, ada, users, mfaStore, loginAttempts, signInTickets, enroll, recoveryCodes, unsaltedRecoveryCodes, addPasskey, challenged, ticket, code, clock, auditTrail, memory, storeCalls };
}
