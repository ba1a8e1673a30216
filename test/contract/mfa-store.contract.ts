import type { LoginAttempts } from '../../src/application/ports/login-attempts.port';
import type { MfaStore } from '../../src/application/ports/mfa-store.port';
import type { UnitOfWork } from '../../src/application/ports/unit-of-work.port';
import type { UserRepository } from '../../src/application/ports/user-repository.port';
import type { MfaFactor } from '../../src/domain/mfa/mfa';
import { type ContractOptions, contractIt, joinedUser, type MakeStores, newId, tokenHash } from './contract-kit';

const AT = new Date('2026-01-01T00:00:00.001Z');

/**
 * What MfaStore promises (src/application/ports/mfa-store.port.ts). Each call runs in a unit of work of its
 * own (`scope.mfa`), as the enrollment's writes do; the conditional uses hold whichever side runs them.
 */
export function describeMfaStoreContract(name: string, makeSubject: MakeStores<'users' | 'unitOfWork' | 'loginAttempts'>, options: ContractOptions = {}): void {
  const test = contractIt(options);

  describe(`${name} honours the MfaStore contract`, () => {
    let users: UserRepository;
    let unitOfWork: UnitOfWork;
    let loginAttempts: LoginAttempts;
    let mfa: Pick<
      MfaStore,
      | 'factorsOf'
      | 'savePending'
      | 'confirm'
      | 'useTimeStep'
      | 'removeFactors'
      | 'replaceRecoveryCodes'
      | 'recoveryCodeSalt'
      | 'useRecoveryCode'
      | 'restoreRecoveryCode'
      | 'remainingRecoveryCodes'
      | 'secondStepOf'
      | 'ticketHolder'
      | 'addPasskey'
    >;

    beforeEach(async () => {
      ({ users, unitOfWork, loginAttempts } = await makeSubject());
      const run = <T>(work: (store: MfaStore) => Promise<T>) => unitOfWork.run((scope) => work(scope.mfa));
      mfa = {
        factorsOf: (userId) => run((s) => s.factorsOf(userId)),
        savePending: (factor) => run((s) => s.savePending(factor)),
        confirm: (userId, id, at) => run((s) => s.confirm(userId, id, at)),
        useTimeStep: (id, step) => run((s) => s.useTimeStep(id, step)),
        removeFactors: (userId, type) => run((s) => s.removeFactors(userId, type)),
        replaceRecoveryCodes: (userId, hashes, at, salt) => run((s) => s.replaceRecoveryCodes(userId, hashes, at, salt)),
        recoveryCodeSalt: (userId) => run((s) => s.recoveryCodeSalt(userId)),
        useRecoveryCode: (userId, hash, at) => run((s) => s.useRecoveryCode(userId, hash, at)),
        restoreRecoveryCode: (userId, hash) => run((s) => s.restoreRecoveryCode(userId, hash)),
        remainingRecoveryCodes: (userId) => run((s) => s.remainingRecoveryCodes(userId)),
        secondStepOf: (userId, options) => run((s) => s.secondStepOf(userId, options)),
        ticketHolder: (userId, accountKey) => run((s) => s.ticketHolder(userId, accountKey)),
        addPasskey: (passkey) => run((s) => s.addPasskey(passkey)),
      };
    });

    const holder = async (): Promise<string> => {
      const user = joinedUser();
      await users.add(user);
      return user.id;
    };
    const pending = (userId: string, overrides: Partial<MfaFactor> = {}): MfaFactor => ({
      id: newId(),
      userId,
      type: 'totp',
      sealedSecret: `v1.sealed.${newId()}`,
      createdAt: AT,
      confirmedAt: null,
      lastUsedStep: null,
      ...overrides,
    });

    test('stores a pending factor as given, and a new enrollment replaces a pending one', async () => {
      const userId = await holder();
      const first = pending(userId);
      expect(await mfa.savePending(first)).toBe(true);
      expect(await mfa.factorsOf(userId)).toEqual([first]);
      const second = pending(userId);
      expect(await mfa.savePending(second)).toBe(true);
      expect(await mfa.factorsOf(userId)).toEqual([second]);
      expect(await mfa.factorsOf(await holder())).toEqual([]);
    });

    test('confirms once; a confirmed factor is not replaced by a new enrollment', async () => {
      const userId = await holder();
      const factor = pending(userId);
      await mfa.savePending(factor);
      expect(await mfa.confirm(userId, factor.id, AT)).toBe(true);
      expect(await mfa.confirm(userId, factor.id, AT)).toBe(false);
      expect(await mfa.savePending(pending(userId))).toBe(false);
      expect(await mfa.factorsOf(userId)).toEqual([{ ...factor, confirmedAt: AT }]);
    });

    test('accepts each time step once, and never one before the last accepted', async () => {
      const userId = await holder();
      const factor = pending(userId);
      await mfa.savePending(factor);
      expect(await mfa.useTimeStep(factor.id, 59_000_000)).toBe(true);
      expect(await mfa.useTimeStep(factor.id, 59_000_000)).toBe(false);
      expect(await mfa.useTimeStep(factor.id, 58_999_999)).toBe(false);
      expect(await mfa.useTimeStep(factor.id, 59_000_001)).toBe(true);
      expect((await mfa.factorsOf(userId))[0].lastUsedStep).toBe(59_000_001);
    });

    test('of two concurrent uses of one time step, exactly one wins', async () => {
      const userId = await holder();
      const factor = pending(userId);
      await mfa.savePending(factor);
      const outcomes = await Promise.allSettled([mfa.useTimeStep(factor.id, 7), mfa.useTimeStep(factor.id, 7)]);
      expect(outcomes.filter((o) => o.status === 'fulfilled' && o.value === true)).toHaveLength(1);
    });

    test('recovery codes: each used once, the count of the rest answered; replacing kills the old ones', async () => {
      const userId = await holder();
      const [a, b, c] = [tokenHash(), tokenHash(), tokenHash()];
      await mfa.replaceRecoveryCodes(userId, [a, b], AT);
      expect(await mfa.remainingRecoveryCodes(userId)).toBe(2);
      expect(await mfa.useRecoveryCode(userId, a, AT)).toBe(1);
      expect(await mfa.useRecoveryCode(userId, a, AT)).toBeNull();
      expect(await mfa.useRecoveryCode(await holder(), b, AT)).toBeNull();
      await mfa.replaceRecoveryCodes(userId, [c], AT);
      expect(await mfa.useRecoveryCode(userId, b, AT)).toBeNull();
      expect(await mfa.remainingRecoveryCodes(userId)).toBe(1);
    });

    test('keeps the salt of a set of recovery codes, replaced with the set; none for a set stored before salts or no set', async () => {
      const userId = await holder();
      expect(await mfa.recoveryCodeSalt(userId)).toBeNull();
      const salt = 'a1'.repeat(16);
      await mfa.replaceRecoveryCodes(userId, [tokenHash(), tokenHash()], AT, salt);
      expect(await mfa.recoveryCodeSalt(userId)).toBe(salt);
      expect(await mfa.recoveryCodeSalt(await holder())).toBeNull();
      await mfa.replaceRecoveryCodes(userId, [tokenHash()], AT);
      expect(await mfa.recoveryCodeSalt(userId)).toBeNull();
      await mfa.replaceRecoveryCodes(userId, [tokenHash()], AT, 'b2'.repeat(16));
      expect(await mfa.recoveryCodeSalt(userId)).toBe('b2'.repeat(16));
    });

    test('a used recovery code given back is unused again, for its holder only; a replaced one stays gone', async () => {
      const userId = await holder();
      const [a, b] = [tokenHash(), tokenHash()];
      await mfa.replaceRecoveryCodes(userId, [a], AT);
      expect(await mfa.useRecoveryCode(userId, a, AT)).toBe(0);
      await mfa.restoreRecoveryCode(await holder(), a);
      expect(await mfa.remainingRecoveryCodes(userId)).toBe(0);
      await mfa.restoreRecoveryCode(userId, a);
      expect(await mfa.remainingRecoveryCodes(userId)).toBe(1);
      expect(await mfa.useRecoveryCode(userId, a, AT)).toBe(0);
      await mfa.replaceRecoveryCodes(userId, [b], AT);
      await mfa.restoreRecoveryCode(userId, a);
      expect(await mfa.useRecoveryCode(userId, a, AT)).toBeNull();
      expect(await mfa.remainingRecoveryCodes(userId)).toBe(1);
    });

    test('removing the last factor takes the recovery codes with it; removing none answers 0', async () => {
      const userId = await holder();
      const factor = pending(userId);
      await mfa.savePending(factor);
      await mfa.confirm(userId, factor.id, AT);
      await mfa.replaceRecoveryCodes(userId, [tokenHash()], AT);
      expect(await mfa.removeFactors(userId, 'totp')).toBe(1);
      expect(await mfa.factorsOf(userId)).toEqual([]);
      expect(await mfa.remainingRecoveryCodes(userId)).toBe(0);
      expect(await mfa.removeFactors(userId)).toBe(0);
    });

    test('a pending enrollment is no factor: removing it alone answers 0', async () => {
      const userId = await holder();
      await mfa.savePending(pending(userId));
      expect(await mfa.removeFactors(userId, 'totp')).toBe(0);
      expect(await mfa.removeFactors(userId)).toBe(0);
    });

    test('a sign-in’s password step reads the factors, the passkeys (when asked) and the unused recovery codes at once', async () => {
      const userId = await holder();
      expect(await mfa.secondStepOf(userId, { passkeys: true })).toEqual({ factors: [], passkeys: [], recoveryCodes: 0 });
      const factor = pending(userId);
      await mfa.savePending(factor);
      await mfa.confirm(userId, factor.id, AT);
      await mfa.replaceRecoveryCodes(userId, [tokenHash(), tokenHash()], AT);
      const passkey = { id: newId(), userId, name: 'Key', credentialId: `cred-${newId()}`, publicKey: 'pk', counter: 0, transports: ['usb'], createdAt: AT, lastUsedAt: null };
      await mfa.addPasskey(passkey);
      expect(await mfa.secondStepOf(userId, { passkeys: true })).toEqual({ factors: [{ ...factor, confirmedAt: AT }], passkeys: [passkey], recoveryCodes: 2 });
      expect(await mfa.secondStepOf(userId, { passkeys: false })).toEqual({ factors: [{ ...factor, confirmedAt: AT }], passkeys: [], recoveryCodes: 2 });
      expect(await mfa.secondStepOf(await holder(), { passkeys: true })).toEqual({ factors: [], passkeys: [], recoveryCodes: 0 });
    });

    test('a sign-in ticket’s holder is read with its factors and how far its account’s tickets are used up', async () => {
      const user = joinedUser();
      await users.add(user);
      const factor = pending(user.id);
      await mfa.savePending(factor);
      const key = user.username!.toLowerCase();
      const read = await mfa.ticketHolder(user.id, key);
      expect(read).toMatchObject({ factors: [factor], ticketsUsedThrough: null });
      expect(read.holder).toMatchObject({ id: user.id, username: user.username, email: user.email, status: user.status, tokenVersion: user.tokenVersion, roleId: user.roleId });
      // A completed second step uses its ticket up with the account's counters; the read finds how far.
      const policy = { threshold: 5, baseWaitSeconds: 60, maxWaitSeconds: 240 };
      expect(await loginAttempts.claim(key, AT, policy)).toBe(1);
      expect(await loginAttempts.succeeded(key, { ticketIssuedAt: 1_767_225_600_123 })).toBe(true);
      expect((await mfa.ticketHolder(user.id, key)).ticketsUsedThrough).toBe(1_767_225_600_123);
      // Another account's use is not this one's; an unknown user has no holder and no factors.
      expect((await mfa.ticketHolder(user.id, `${key}-other`)).ticketsUsedThrough).toBeNull();
      expect(await mfa.ticketHolder(newId(), key)).toEqual({ holder: null, factors: [], ticketsUsedThrough: 1_767_225_600_123, factorFailures: 0 });
      // Codes refused on the account's right-password tickets are read with it, until its next success.
      await loginAttempts.claim(key, AT, policy, { claimedBefore: true, factorFailure: true });
      await loginAttempts.claim(key, AT, policy, { claimedBefore: true });
      await loginAttempts.claim(key, AT, policy, { factorFailure: true });
      expect((await mfa.ticketHolder(user.id, key)).factorFailures).toBe(2);
      expect((await mfa.ticketHolder(user.id, `${key}-other`)).factorFailures).toBe(0);
      await loginAttempts.succeeded(key);
      expect((await mfa.ticketHolder(user.id, key)).factorFailures).toBe(0);
    });

    test('the ticket read finds the use of an account whose key is longer than the counters’ column', async () => {
      const user = joinedUser();
      await users.add(user);
      const key = `${'k'.repeat(80)}@example.com`;
      await loginAttempts.claim(key, AT, { threshold: 5, baseWaitSeconds: 60, maxWaitSeconds: 240 });
      expect(await loginAttempts.succeeded(key, { ticketIssuedAt: 42 })).toBe(true);
      expect((await mfa.ticketHolder(user.id, key)).ticketsUsedThrough).toBe(42);
    });
  });
}
