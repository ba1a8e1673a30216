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
export function describeMfaStoreContract(name: string, makeSubject: MakeStores<'users' | 'unitOfWork'>, options: ContractOptions = {}): void {
  const test = contractIt(options);

  describe(`${name} honours the MfaStore contract`, () => {
    let users: UserRepository;
    let unitOfWork: UnitOfWork;
    let mfa: Pick<
      MfaStore,
      | 'factorsOf'
      | 'savePending'
      | 'confirm'
      | 'useTimeStep'
      | 'removeFactors'
      | 'replaceRecoveryCodes'
      | 'useRecoveryCode'
      | 'remainingRecoveryCodes'
      | 'addChallenge'
      | 'findChallenge'
      | 'useChallenge'
      | 'secondStepOf'
      | 'signInTicket'
      | 'useTimeStepAndTicket'
      | 'addPasskey'
    >;

    beforeEach(async () => {
      ({ users, unitOfWork } = await makeSubject());
      const run = <T>(work: (store: MfaStore) => Promise<T>) => unitOfWork.run((scope) => work(scope.mfa));
      mfa = {
        factorsOf: (userId) => run((s) => s.factorsOf(userId)),
        savePending: (factor) => run((s) => s.savePending(factor)),
        confirm: (userId, id, at) => run((s) => s.confirm(userId, id, at)),
        useTimeStep: (id, step) => run((s) => s.useTimeStep(id, step)),
        removeFactors: (userId, type) => run((s) => s.removeFactors(userId, type)),
        replaceRecoveryCodes: (userId, hashes, at) => run((s) => s.replaceRecoveryCodes(userId, hashes, at)),
        useRecoveryCode: (userId, hash, at) => run((s) => s.useRecoveryCode(userId, hash, at)),
        remainingRecoveryCodes: (userId) => run((s) => s.remainingRecoveryCodes(userId)),
        addChallenge: (challenge) => run((s) => s.addChallenge(challenge)),
        findChallenge: (hash) => run((s) => s.findChallenge(hash)),
        useChallenge: (hash, at) => run((s) => s.useChallenge(hash, at)),
        secondStepOf: (userId, options) => run((s) => s.secondStepOf(userId, options)),
        signInTicket: (hash) => run((s) => s.signInTicket(hash)),
        useTimeStepAndTicket: (id, step, hash, at) => run((s) => s.useTimeStepAndTicket(id, step, hash, at)),
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

    test('a challenge is found by its hash as stored and used once', async () => {
      const userId = await holder();
      const challenge = { tokenHash: tokenHash(), userId, createdAt: AT, expiresAt: new Date('2026-01-01T00:05:00.001Z'), usedAt: null, passwordMatched: true };
      await mfa.addChallenge(challenge);
      expect(await mfa.findChallenge(challenge.tokenHash)).toEqual(challenge);
      expect(await mfa.findChallenge(tokenHash())).toBeNull();
      const usedAt = new Date('2026-01-01T00:01:00.001Z');
      expect(await mfa.useChallenge(challenge.tokenHash, usedAt)).toBe(true);
      expect(await mfa.useChallenge(challenge.tokenHash, usedAt)).toBe(false);
      expect(await mfa.findChallenge(challenge.tokenHash)).toEqual({ ...challenge, usedAt });
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

    test('a sign-in ticket is read with its holder and the holder’s factors; an unknown one is null', async () => {
      const user = joinedUser();
      await users.add(user);
      const factor = pending(user.id);
      await mfa.savePending(factor);
      const challenge = { tokenHash: tokenHash(), userId: user.id, createdAt: AT, expiresAt: new Date('2026-01-01T00:05:00.001Z'), usedAt: null, passwordMatched: true };
      await mfa.addChallenge(challenge);
      const read = await mfa.signInTicket(challenge.tokenHash);
      expect(read).toMatchObject({ challenge, factors: [factor] });
      expect(read!.holder).toMatchObject({ id: user.id, username: user.username, email: user.email, status: user.status, tokenVersion: user.tokenVersion, roleId: user.roleId });
      expect(await mfa.signInTicket(tokenHash())).toBeNull();
    });

    test('a right code’s time step and its ticket are used together: a replayed step leaves the ticket, a used ticket is told', async () => {
      const userId = await holder();
      const factor = pending(userId);
      await mfa.savePending(factor);
      const ticket = () => ({ tokenHash: tokenHash(), userId, createdAt: AT, expiresAt: new Date('2026-01-01T00:05:00.001Z'), usedAt: null, passwordMatched: true });
      const [first, second] = [ticket(), ticket()];
      await mfa.addChallenge(first);
      await mfa.addChallenge(second);
      const at = new Date('2026-01-01T00:01:00.001Z');
      expect(await mfa.useTimeStepAndTicket(factor.id, 100, first.tokenHash, at)).toBe('used');
      expect(await mfa.findChallenge(first.tokenHash)).toEqual({ ...first, usedAt: at });
      expect(await mfa.useTimeStepAndTicket(factor.id, 100, second.tokenHash, at)).toBe('step_used');
      expect(await mfa.findChallenge(second.tokenHash)).toEqual(second);
      expect(await mfa.useTimeStepAndTicket(factor.id, 101, first.tokenHash, at)).toBe('ticket_used');
      expect(await mfa.useTimeStepAndTicket(factor.id, 102, second.tokenHash, at)).toBe('used');
      expect((await mfa.factorsOf(userId))[0].lastUsedStep).toBe(102);
    });

    test('a wrong password’s ticket keeps its flag as stored', async () => {
      const userId = await holder();
      const decoy = { tokenHash: tokenHash(), userId, createdAt: AT, expiresAt: new Date('2026-01-01T00:05:00.001Z'), usedAt: AT, passwordMatched: false };
      await mfa.addChallenge(decoy);
      expect(await mfa.findChallenge(decoy.tokenHash)).toEqual(decoy);
    });
  });
}
