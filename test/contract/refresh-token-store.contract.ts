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
