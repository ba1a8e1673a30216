import type { SingleUseTokenStore } from '../../src/application/ports/single-use-token-store.port';
import type { TransactionScope, UnitOfWork } from '../../src/application/ports/unit-of-work.port';
import type { UserRepository } from '../../src/application/ports/user-repository.port';
import type { SingleUseToken } from '../../src/domain/shared/single-use-token';
import { type ContractOptions, contractIt, joinedUser, type MakeStores, pendingUser, tokenHash } from './contract-kit';

/** The two uses of one flow: an invitation hangs on a pending user, a password reset on a joined one. */
export type SingleUseTokenKind = 'invitations' | 'passwordResets';

function linkFor(userId: string, overrides: Partial<SingleUseToken> = {}): SingleUseToken {
  return {
    userId,
    tokenHash: tokenHash(),
    createdAt: new Date('2026-01-01T00:00:00.001Z'),
    expiresAt: new Date('2026-01-01T01:00:00.999Z'),
    ...overrides,
  };
}

/**
 * What SingleUseTokenStore promises (src/application/ports/single-use-token-store.port.ts), for both of its
 * uses: the invitations and the password resets. The stores live inside a unit of work (the application
 * only uses them there): each call below is a transaction of its own, and every link belongs to a user
 * added first (the database refuses a link of no user; the port says nothing of it).
 */
export function describeSingleUseTokenStoreContract(
  name: string,
  kind: SingleUseTokenKind,
  makeSubject: MakeStores<'users' | 'unitOfWork'>,
  options: ContractOptions = {},
): void {
  const test = contractIt(options);

  describe(`${name} honours the SingleUseTokenStore contract (${kind})`, () => {
    let users: UserRepository;
    let unitOfWork: UnitOfWork;
    /** The port's calls, each in a transaction of its own. */
    let links: SingleUseTokenStore;

    beforeEach(async () => {
      ({ users, unitOfWork } = await makeSubject());
      const run = <T>(work: (store: SingleUseTokenStore) => Promise<T>) => unitOfWork.run((scope: TransactionScope) => work(scope[kind]));
      links = {
        replaceForUser: (link) => run((store) => store.replaceForUser(link)),
        findByTokenHash: (hash) => run((store) => store.findByTokenHash(hash)),
        markUsed: (link, at) => run((store) => store.markUsed(link, at)),
      };
    });

    const holder = async (): Promise<string> => {
      const user = kind === 'invitations' ? pendingUser() : joinedUser();
      await users.add(user);
      return user.id;
    };

    describe('replaceForUser, then findByTokenHash', () => {
      test('finds a stored link by its token hash as it was stored, dates to the millisecond, not used', async () => {
        const link = linkFor(await holder());
        await links.replaceForUser(link);
        const found = await links.findByTokenHash(link.tokenHash);
        expect(found).toEqual(link);
        expect(found?.usedAt).toBeUndefined();
        expect([found?.createdAt.toISOString(), found?.expiresAt.toISOString()]).toEqual(['2026-01-01T00:00:00.001Z', '2026-01-01T01:00:00.999Z']);
      });

      test('keeps the time a stored link was used', async () => {
        const link = linkFor(await holder(), { usedAt: new Date('2026-01-02T03:04:05.678Z') });
        await links.replaceForUser(link);
        expect(await links.findByTokenHash(link.tokenHash)).toEqual(link);
      });

      test('finds nothing for an unknown token hash', async () => {
        await links.replaceForUser(linkFor(await holder()));
        expect(await links.findByTokenHash(tokenHash('never issued'))).toBeNull();
      });

      test('keeps one link per user: a newer one kills the older token, and is unused even when the older was used', async () => {
        const userId = await holder();
        const older = linkFor(userId);
        await links.replaceForUser(older);
        expect(await links.markUsed(older, new Date('2026-01-01T00:30:00.000Z'))).toBe(true);
        const newer = linkFor(userId, { createdAt: new Date('2026-01-02T00:00:00.000Z'), expiresAt: new Date('2026-01-02T01:00:00.000Z') });
        await links.replaceForUser(newer);
        expect(await links.findByTokenHash(older.tokenHash)).toBeNull();
        expect(await links.findByTokenHash(newer.tokenHash)).toEqual(newer);
        expect(await links.markUsed(newer, new Date('2026-01-02T00:10:00.000Z'))).toBe(true);
      });

      test("leaves other users' links alone", async () => {
        const [a, b] = [linkFor(await holder()), linkFor(await holder())];
        await links.replaceForUser(a);
        await links.replaceForUser(b);
        await links.replaceForUser(linkFor(a.userId));
        expect(await links.findByTokenHash(b.tokenHash)).toEqual(b);
      });
    });

    describe('markUsed', () => {
      test('marks an unused link used once, at the given time: a second mark is false and keeps the first time', async () => {
        const link = linkFor(await holder());
        await links.replaceForUser(link);
        expect(await links.markUsed(link, new Date('2026-02-02T02:02:02.002Z'))).toBe(true);
        expect(await links.markUsed(link, new Date('2026-03-03T03:03:03.003Z'))).toBe(false);
        expect((await links.findByTokenHash(link.tokenHash))?.usedAt?.toISOString()).toBe('2026-02-02T02:02:02.002Z');
      });

      test('lets exactly one of concurrent marks win (the others are false or roll back)', async () => {
        const link = linkFor(await holder());
        await links.replaceForUser(link);
        const results = await Promise.allSettled(Array.from({ length: 4 }, (_, i) => links.markUsed(link, new Date(Date.UTC(2026, 1, 1, 0, 0, i)))));
        expect(results.filter((r) => r.status === 'fulfilled' && r.value === true)).toHaveLength(1);
      });

      test('is false for a superseded link, and leaves its successor unused and usable', async () => {
        const userId = await holder();
        const superseded = linkFor(userId);
        await links.replaceForUser(superseded);
        const successor = linkFor(userId, { createdAt: new Date('2026-01-01T00:10:00.000Z') });
        await links.replaceForUser(successor);
        expect(await links.markUsed(superseded, new Date('2026-01-01T00:20:00.000Z'))).toBe(false);
        expect((await links.findByTokenHash(successor.tokenHash))?.usedAt).toBeUndefined();
        expect(await links.markUsed(successor, new Date('2026-01-01T00:30:00.000Z'))).toBe(true);
      });

      test('is false for a user without a link, and stores none', async () => {
        const userId = await holder();
        const never = linkFor(userId);
        expect(await links.markUsed(never, new Date('2026-02-02T00:00:00.000Z'))).toBe(false);
        const later = linkFor(userId);
        await links.replaceForUser(later);
        expect((await links.findByTokenHash(later.tokenHash))?.usedAt).toBeUndefined();
      });

      test("marks only that user's link", async () => {
        const [a, b] = [linkFor(await holder()), linkFor(await holder())];
        await links.replaceForUser(a);
        await links.replaceForUser(b);
        await links.markUsed(a, new Date('2026-02-02T00:00:00.000Z'));
        expect((await links.findByTokenHash(b.tokenHash))?.usedAt).toBeUndefined();
      });
    });

    test('writes nothing when its transaction rolls back', async () => {
      const link = linkFor(await holder());
      await expect(
        unitOfWork.run(async (scope) => {
          await scope[kind].replaceForUser(link);
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      expect(await links.findByTokenHash(link.tokenHash)).toBeNull();
    });
  });
}
