import type { PasswordResetStore } from '../../src/application/ports/password-reset-store.port';
import type { UnitOfWork } from '../../src/application/ports/unit-of-work.port';
import type { UserRepository } from '../../src/application/ports/user-repository.port';
import type { PasswordReset } from '../../src/domain/users/password-reset';
import { type ContractOptions, contractIt, joinedUser, type MakeStores, tokenHash } from './contract-kit';

function resetFor(userId: string, overrides: Partial<PasswordReset> = {}): PasswordReset {
  return {
    userId,
    tokenHash: tokenHash(),
    createdAt: new Date('2026-01-01T00:00:00.001Z'),
    expiresAt: new Date('2026-01-01T01:00:00.999Z'),
    ...overrides,
  };
}

/**
 * What PasswordResetStore promises (src/application/ports/password-reset-store.port.ts, issue #10). The
 * store lives inside a unit of work (the application only uses it there): each call below is a
 * transaction of its own, and every reset belongs to a joined user added first.
 */
export function describePasswordResetStoreContract(name: string, makeSubject: MakeStores<'users' | 'unitOfWork'>, options: ContractOptions = {}): void {
  const test = contractIt(options);

  describe(`${name} honours the PasswordResetStore contract`, () => {
    let users: UserRepository;
    let unitOfWork: UnitOfWork;
    /** The port's calls, each in a transaction of its own. */
    let resets: PasswordResetStore;

    beforeEach(async () => {
      ({ users, unitOfWork } = await makeSubject());
      resets = {
        replaceForUser: (reset) => unitOfWork.run(({ passwordResets }) => passwordResets.replaceForUser(reset)),
        findByTokenHash: (hash) => unitOfWork.run(({ passwordResets }) => passwordResets.findByTokenHash(hash)),
        markUsed: (userId, at) => unitOfWork.run(({ passwordResets }) => passwordResets.markUsed(userId, at)),
      };
    });

    const holder = async (): Promise<string> => {
      const user = joinedUser();
      await users.add(user);
      return user.id;
    };

    test('finds a stored reset by its token hash as it was stored, dates to the millisecond, not used', async () => {
      const reset = resetFor(await holder());
      await resets.replaceForUser(reset);
      const found = await resets.findByTokenHash(reset.tokenHash);
      expect(found).toEqual(reset);
      expect(found?.usedAt).toBeUndefined();
      expect([found?.createdAt.toISOString(), found?.expiresAt.toISOString()]).toEqual(['2026-01-01T00:00:00.001Z', '2026-01-01T01:00:00.999Z']);
    });

    test('finds nothing for an unknown token hash', async () => {
      await resets.replaceForUser(resetFor(await holder()));
      expect(await resets.findByTokenHash(tokenHash('never issued'))).toBeNull();
    });

    test('keeps one reset per user: a newer one kills the older token, and is unused even when the older was used', async () => {
      const userId = await holder();
      const older = resetFor(userId);
      await resets.replaceForUser(older);
      expect(await resets.markUsed(userId, new Date('2026-01-01T00:30:00.000Z'))).toBe(true);
      const newer = resetFor(userId, { createdAt: new Date('2026-01-02T00:00:00.000Z'), expiresAt: new Date('2026-01-02T01:00:00.000Z') });
      await resets.replaceForUser(newer);
      expect(await resets.findByTokenHash(older.tokenHash)).toBeNull();
      expect(await resets.findByTokenHash(newer.tokenHash)).toEqual(newer);
      expect(await resets.markUsed(userId, new Date('2026-01-02T00:10:00.000Z'))).toBe(true);
    });

    test("leaves other users' resets alone", async () => {
      const [a, b] = [resetFor(await holder()), resetFor(await holder())];
      await resets.replaceForUser(a);
      await resets.replaceForUser(b);
      await resets.replaceForUser(resetFor(a.userId));
      await resets.markUsed(a.userId, new Date('2026-01-01T00:10:00.000Z'));
      expect(await resets.findByTokenHash(b.tokenHash)).toEqual(b);
    });

    test('marks an unused reset used once, at the given time: a second mark is false and keeps the first time', async () => {
      const reset = resetFor(await holder());
      await resets.replaceForUser(reset);
      expect(await resets.markUsed(reset.userId, new Date('2026-02-02T02:02:02.002Z'))).toBe(true);
      expect(await resets.markUsed(reset.userId, new Date('2026-03-03T03:03:03.003Z'))).toBe(false);
      expect((await resets.findByTokenHash(reset.tokenHash))?.usedAt?.toISOString()).toBe('2026-02-02T02:02:02.002Z');
    });

    test('lets exactly one of concurrent marks win (the others are false or roll back)', async () => {
      const reset = resetFor(await holder());
      await resets.replaceForUser(reset);
      const results = await Promise.allSettled(Array.from({ length: 4 }, (_, i) => resets.markUsed(reset.userId, new Date(Date.UTC(2026, 1, 1, 0, 0, i)))));
      expect(results.filter((r) => r.status === 'fulfilled' && r.value === true)).toHaveLength(1);
    });

    test('is false for a user without a reset, and stores none', async () => {
      const userId = await holder();
      expect(await resets.markUsed(userId, new Date('2026-02-02T00:00:00.000Z'))).toBe(false);
      const later = resetFor(userId);
      await resets.replaceForUser(later);
      expect((await resets.findByTokenHash(later.tokenHash))?.usedAt).toBeUndefined();
    });

    test('writes nothing when its transaction rolls back', async () => {
      const reset = resetFor(await holder());
      await expect(
        unitOfWork.run(async ({ passwordResets }) => {
          await passwordResets.replaceForUser(reset);
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      expect(await resets.findByTokenHash(reset.tokenHash)).toBeNull();
    });
  });
}
