import type { RefreshToken, RefreshTokenStore } from '../../src/application/ports/refresh-token-store.port';
import type { UserRepository } from '../../src/application/ports/user-repository.port';
import { type ContractOptions, contractIt, joinedUser, type MakeStores, newId, tokenHash } from './contract-kit';

const AT = new Date('2026-02-01T10:00:00.123Z');
const later = (ms: number) => new Date(AT.getTime() + ms);

/** What RefreshTokenStore promises (src/application/ports/refresh-token-store.port.ts). Tokens belong to users added first. */
export function describeRefreshTokenStoreContract(name: string, makeSubject: MakeStores<'users' | 'refreshTokens'>, options: ContractOptions = {}): void {
  const test = contractIt(options);

  describe(`${name} honours the RefreshTokenStore contract`, () => {
    let users: UserRepository;
    let store: RefreshTokenStore;
    let userId: string;

    beforeEach(async () => {
      ({ users, refreshTokens: store } = await makeSubject());
      const user = joinedUser();
      await users.add(user);
      userId = user.id;
    });

    const token = (overrides: Partial<RefreshToken> = {}): RefreshToken => ({
      id: newId(),
      familyId: newId(),
      userId,
      tokenHash: tokenHash(),
      tokenVersion: 3,
      createdAt: AT,
      expiresAt: later(30 * 86_400_000),
      idleExpiresAt: later(7 * 86_400_000 + 7),
      usedAt: null,
      revokedAt: null,
      familyInToken: true,
      ...overrides,
    });
    const successorOf = (used: RefreshToken) => token({ familyId: used.familyId, tokenVersion: used.tokenVersion, createdAt: later(1000) });

    test('finds an added token by its hash as it was stored, dates to the millisecond', async () => {
      const added = token();
      await store.add(added);
      expect(await store.findByHash(added.tokenHash)).toEqual(added);
      expect(await store.findByHash(tokenHash())).toBeNull();
    });

    test('rotate uses the token up and adds its successor, once', async () => {
      const first = token();
      await store.add(first);
      const second = successorOf(first);

      expect(await store.rotate(first.id, later(1000), second)).toBe(true);
      expect(await store.findByHash(first.tokenHash)).toEqual({ ...first, usedAt: later(1000) });
      expect(await store.findByHash(second.tokenHash)).toEqual(second);

      const third = successorOf(first);
      expect(await store.rotate(first.id, later(2000), third)).toBe(false);
      expect(await store.findByHash(third.tokenHash)).toBeNull();
      expect((await store.findByHash(first.tokenHash))?.usedAt).toEqual(later(1000));
    });

    test('finds an earlier version\'s token (naming no family) as it was stored', async () => {
      const added = token({ familyInToken: false });
      await store.add(added);
      expect(await store.findByHash(added.tokenHash)).toEqual(added);
    });

    test('rotate forgets the family\'s used tokens that name it, used before the given time, and keeps every other', async () => {
      // A family whose first token is an earlier version's (it names no family), exchanged three times since.
      const legacy = token({ familyInToken: false });
      await store.add(legacy);
      const chain = [legacy];
      for (let i = 1; i <= 3; i++) {
        const next = token({ familyId: legacy.familyId, createdAt: later(i * 60_000) });
        expect(await store.rotate(chain.at(-1)!.id, later(i * 60_000), next)).toBe(true);
        chain.push(next);
      }
      const other = token({ createdAt: later(0) });
      await store.add(other);
      await store.rotate(other.id, later(1000), token({ familyId: other.familyId, createdAt: later(1000) }));
      // chain[1] was used at 2 min, chain[2] at 3 min: the exchange at 4 min forgets those used before 3 min.
      const fourth = token({ familyId: legacy.familyId, createdAt: later(240_000) });
      expect(await store.rotate(chain[3]!.id, later(240_000), fourth, { forgetUsedBefore: later(180_000) })).toBe(true);

      const kept = await Promise.all([...chain, fourth, other].map(async (t) => (await store.findByHash(t.tokenHash)) !== null));
      // legacy: names no family, kept; chain[1]: used at 2 min, forgotten; chain[2]: used at 3 min, kept; chain[3]: just used; other family: kept.
      expect(kept).toEqual([true, false, true, true, true, true]);
    });

    test('findNewestOfFamily answers the family\'s latest token whatever its state, and null for a family without tokens', async () => {
      const first = token();
      await store.add(first);
      expect(await store.findNewestOfFamily(first.familyId)).toEqual(first);
      const second = successorOf(first);
      await store.rotate(first.id, later(1000), second);
      expect(await store.findNewestOfFamily(first.familyId)).toEqual(second);
      await store.revokeFamily(first.familyId, later(2000));
      expect(await store.findNewestOfFamily(first.familyId)).toEqual({ ...second, revokedAt: later(2000) });
      expect(await store.findNewestOfFamily(newId())).toBeNull();
    });

    test('rotate refuses a revoked token and writes nothing', async () => {
      const first = token();
      await store.add(first);
      await store.revokeFamily(first.familyId, later(500));
      const second = successorOf(first);

      expect(await store.rotate(first.id, later(1000), second)).toBe(false);
      expect(await store.findByHash(second.tokenHash)).toBeNull();
      expect((await store.findByHash(first.tokenHash))?.usedAt).toBeNull();
    });

    test('of concurrent rotations of one token exactly one wins, and only its successor is stored', async () => {
      const first = token();
      await store.add(first);
      const successors = Array.from({ length: 6 }, () => successorOf(first));

      const results = await Promise.all(successors.map((s) => store.rotate(first.id, later(1000), s)));

      expect(results.filter(Boolean)).toHaveLength(1);
      const stored = await Promise.all(successors.map((s) => store.findByHash(s.tokenHash)));
      expect(stored.filter((s) => s !== null).map((s) => s!.id)).toEqual([successors[results.indexOf(true)]!.id]);
    });

    test('revokeFamily revokes every token of the family, keeps an earlier revocation date and leaves other families', async () => {
      const first = token();
      const other = token();
      await store.add(first);
      await store.add(other);
      const second = successorOf(first);
      await store.rotate(first.id, later(1000), second);

      // Both of the family's tokens (the used one and its successor) revoked now; none the second time.
      expect(await store.revokeFamily(first.familyId, later(2000))).toBe(2);
      expect(await store.revokeFamily(first.familyId, later(3000))).toBe(0);

      expect((await store.findByHash(first.tokenHash))?.revokedAt).toEqual(later(2000));
      expect((await store.findByHash(second.tokenHash))?.revokedAt).toEqual(later(2000));
      expect((await store.findByHash(other.tokenHash))?.revokedAt).toBeNull();
    });

    test('deleteExpired deletes tokens whose family ended, at most `limit`, and answers how many', async () => {
      const ended = [token({ expiresAt: later(1) }), token({ expiresAt: later(2) }), token({ expiresAt: later(3) })];
      const alive = token({ expiresAt: later(10_000) });
      for (const t of [...ended, alive]) await store.add(t);

      expect(await store.deleteExpired(later(5), 2)).toBe(2);
      expect(await store.deleteExpired(later(5), 2)).toBe(1);
      expect(await store.deleteExpired(later(5), 2)).toBe(0);
      expect(await Promise.all(ended.map((t) => store.findByHash(t.tokenHash)))).toEqual([null, null, null]);
      expect(await store.findByHash(alive.tokenHash)).toEqual(alive);
    });
  });
}
