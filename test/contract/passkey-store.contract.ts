import type { MfaStore } from '../../src/application/ports/mfa-store.port';
import type { UnitOfWork } from '../../src/application/ports/unit-of-work.port';
import type { UserRepository } from '../../src/application/ports/user-repository.port';
import type { Passkey, WebAuthnChallenge } from '../../src/domain/mfa/passkey';
import { type ContractOptions, contractIt, joinedUser, type MakeStores, newId, tokenHash } from './contract-kit';

const AT = new Date('2026-01-01T00:00:00.001Z');
const LATER = new Date('2026-01-01T00:10:00.001Z');

/**
 * What MfaStore promises of passkeys and WebAuthn challenges (#24; src/application/ports/mfa-store.port.ts), each
 * call in a unit of work of its own (`scope.mfa`), as the use cases run them.
 */
export function describePasskeyStoreContract(name: string, makeSubject: MakeStores<'users' | 'unitOfWork'>, options: ContractOptions = {}): void {
  const test = contractIt(options);

  describe(`${name} honours the MfaStore contract for passkeys`, () => {
    let users: UserRepository;
    let mfa: Pick<MfaStore, 'passkeysOf' | 'addPasskey' | 'renamePasskey' | 'removePasskey' | 'usePasskey' | 'addWebAuthnChallenge' | 'takeWebAuthnChallenge' | 'deleteExpired' | 'replaceRecoveryCodes' | 'remainingRecoveryCodes' | 'removeFactors' | 'savePending'>;

    beforeEach(async () => {
      let unitOfWork: UnitOfWork;
      ({ users, unitOfWork } = await makeSubject());
      const run = <T>(work: (store: MfaStore) => Promise<T>) => unitOfWork.run((scope) => work(scope.mfa));
      mfa = {
        passkeysOf: (userId) => run((s) => s.passkeysOf(userId)),
        addPasskey: (passkey) => run((s) => s.addPasskey(passkey)),
        renamePasskey: (userId, id, n) => run((s) => s.renamePasskey(userId, id, n)),
        removePasskey: (userId, id) => run((s) => s.removePasskey(userId, id)),
        usePasskey: (id, counter, at) => run((s) => s.usePasskey(id, counter, at)),
        addWebAuthnChallenge: (c) => run((s) => s.addWebAuthnChallenge(c)),
        takeWebAuthnChallenge: (hash, userId, ceremony, at) => run((s) => s.takeWebAuthnChallenge(hash, userId, ceremony, at)),
        deleteExpired: (now, limit) => run((s) => s.deleteExpired(now, limit)),
        replaceRecoveryCodes: (userId, hashes, at) => run((s) => s.replaceRecoveryCodes(userId, hashes, at)),
        remainingRecoveryCodes: (userId) => run((s) => s.remainingRecoveryCodes(userId)),
        removeFactors: (userId, type) => run((s) => s.removeFactors(userId, type)),
        savePending: (factor) => run((s) => s.savePending(factor)),
      };
    });

    const holder = async (): Promise<string> => {
      const user = joinedUser();
      await users.add(user);
      return user.id;
    };
    const passkey = (userId: string, overrides: Partial<Passkey> = {}): Passkey => ({
      id: newId(),
      userId,
      name: 'Laptop',
      credentialId: `cred-${newId()}`,
      publicKey: 'pQECAyYgASFYIK',
      counter: 0,
      transports: ['internal', 'hybrid'],
      createdAt: AT,
      lastUsedAt: null,
      ...overrides,
    });
    const challenge = (userId: string, overrides: Partial<WebAuthnChallenge> = {}): WebAuthnChallenge => ({
      challengeHash: tokenHash(),
      userId,
      ceremony: 'authentication',
      createdAt: AT,
      expiresAt: new Date(AT.getTime() + 300_000),
      ...overrides,
    });

    test('stores passkeys as given, several per user, oldest first; a credential id is registered once, to anyone', async () => {
      const userId = await holder();
      const first = passkey(userId);
      const second = passkey(userId, { name: 'Phone', createdAt: LATER, transports: [] });
      expect(await mfa.addPasskey(first)).toBe(true);
      expect(await mfa.addPasskey(second)).toBe(true);
      expect(await mfa.passkeysOf(userId)).toEqual([first, second]);
      expect(await mfa.addPasskey(passkey(await holder(), { credentialId: first.credentialId }))).toBe(false);
      expect(await mfa.passkeysOf(await holder())).toEqual([]);
    });

    test('renames and removes only the owner’s passkey', async () => {
      const userId = await holder();
      const other = await holder();
      const key = passkey(userId);
      await mfa.addPasskey(key);
      expect(await mfa.renamePasskey(other, key.id, 'Stolen')).toBe(false);
      expect(await mfa.renamePasskey(userId, key.id, 'Work laptop')).toBe(true);
      expect(await mfa.renamePasskey(userId, key.id, 'Work laptop')).toBe(true);
      expect((await mfa.passkeysOf(userId))[0].name).toBe('Work laptop');
      expect(await mfa.removePasskey(other, key.id)).toBe(false);
      expect(await mfa.removePasskey(userId, key.id)).toBe(true);
      expect(await mfa.removePasskey(userId, key.id)).toBe(false);
      expect(await mfa.passkeysOf(userId)).toEqual([]);
    });

    test('a counter must advance (or stay 0 for an authenticator that keeps none); the time of use is kept', async () => {
      const userId = await holder();
      const counting = passkey(userId, { counter: 5 });
      const zero = passkey(userId);
      await mfa.addPasskey(counting);
      await mfa.addPasskey(zero);
      expect(await mfa.usePasskey(counting.id, 5, LATER)).toBe(false);
      expect(await mfa.usePasskey(counting.id, 4, LATER)).toBe(false);
      expect(await mfa.usePasskey(counting.id, 6, LATER)).toBe(true);
      expect(await mfa.usePasskey(zero.id, 0, LATER)).toBe(true);
      expect(await mfa.usePasskey(zero.id, 0, LATER)).toBe(true);
      const stored = await mfa.passkeysOf(userId);
      expect(stored.find((p) => p.id === counting.id)).toEqual({ ...counting, counter: 6, lastUsedAt: LATER });
      expect(stored.find((p) => p.id === zero.id)).toEqual({ ...zero, lastUsedAt: LATER });
    });

    test('of two concurrent assertions with one counter, exactly one wins', async () => {
      const key = passkey(await holder(), { counter: 1 });
      await mfa.addPasskey(key);
      const outcomes = await Promise.allSettled([mfa.usePasskey(key.id, 2, LATER), mfa.usePasskey(key.id, 2, LATER)]);
      expect(outcomes.filter((o) => o.status === 'fulfilled' && o.value === true)).toHaveLength(1);
    });

    test('the recovery codes go with the last factor, whichever kind it is', async () => {
      const userId = await holder();
      const [a, b] = [passkey(userId), passkey(userId)];
      await mfa.addPasskey(a);
      await mfa.addPasskey(b);
      await mfa.replaceRecoveryCodes(userId, [tokenHash()], AT);
      await mfa.savePending({ id: newId(), userId, type: 'totp', sealedSecret: 'v1.x', createdAt: AT, confirmedAt: AT, lastUsedStep: null });
      expect(await mfa.removeFactors(userId, 'totp')).toBe(1);
      await mfa.removePasskey(userId, a.id);
      expect(await mfa.remainingRecoveryCodes(userId)).toBe(1);
      await mfa.removePasskey(userId, b.id);
      expect(await mfa.remainingRecoveryCodes(userId)).toBe(0);
    });

    test('a pending enrollment keeps no recovery code: they go with the last passkey', async () => {
      const userId = await holder();
      const key = passkey(userId);
      await mfa.addPasskey(key);
      await mfa.replaceRecoveryCodes(userId, [tokenHash()], AT);
      await mfa.savePending({ id: newId(), userId, type: 'totp', sealedSecret: 'v1.x', createdAt: AT, confirmedAt: null, lastUsedStep: null });
      await mfa.removePasskey(userId, key.id);
      expect(await mfa.remainingRecoveryCodes(userId)).toBe(0);
    });

    test('removing every factor takes the passkeys too, counted', async () => {
      const userId = await holder();
      await mfa.addPasskey(passkey(userId));
      await mfa.addPasskey(passkey(userId));
      expect(await mfa.removeFactors(userId)).toBe(2);
      expect(await mfa.passkeysOf(userId)).toEqual([]);
    });

    test('a challenge is taken once, by its user and ceremony, before it expires', async () => {
      const userId = await holder();
      const c = challenge(userId);
      await mfa.addWebAuthnChallenge(c);
      expect(await mfa.takeWebAuthnChallenge(c.challengeHash, await holder(), 'authentication', AT)).toBe(false);
      expect(await mfa.takeWebAuthnChallenge(c.challengeHash, userId, 'registration', AT)).toBe(false);
      expect(await mfa.takeWebAuthnChallenge(c.challengeHash, userId, 'authentication', AT)).toBe(true);
      expect(await mfa.takeWebAuthnChallenge(c.challengeHash, userId, 'authentication', AT)).toBe(false);
      const old = challenge(userId, { ceremony: 'registration' });
      await mfa.addWebAuthnChallenge(old);
      expect(await mfa.takeWebAuthnChallenge(old.challengeHash, userId, 'registration', old.expiresAt)).toBe(false);
    });

    test('of two concurrent takes of one challenge, exactly one wins', async () => {
      const userId = await holder();
      const c = challenge(userId);
      await mfa.addWebAuthnChallenge(c);
      const outcomes = await Promise.allSettled([mfa.takeWebAuthnChallenge(c.challengeHash, userId, 'authentication', AT), mfa.takeWebAuthnChallenge(c.challengeHash, userId, 'authentication', AT)]);
      expect(outcomes.filter((o) => o.status === 'fulfilled' && o.value === true)).toHaveLength(1);
    });

    test('deletes expired challenges, at most `limit` at a time, and nothing alive', async () => {
      const userId = await holder();
      const alive = challenge(userId, { expiresAt: new Date(LATER.getTime() + 60_000) });
      await mfa.addWebAuthnChallenge(alive);
      await mfa.addWebAuthnChallenge(challenge(userId));
      await mfa.addWebAuthnChallenge(challenge(userId, { ceremony: 'registration' }));
      await mfa.addWebAuthnChallenge(challenge(userId));
      expect(await mfa.deleteExpired(LATER, 2)).toBe(2);
      expect(await mfa.deleteExpired(LATER, 2)).toBe(1);
      expect(await mfa.deleteExpired(LATER, 2)).toBe(0);
      expect(await mfa.takeWebAuthnChallenge(alive.challengeHash, userId, 'authentication', LATER)).toBe(true);
    });
  });
}
