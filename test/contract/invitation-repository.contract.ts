import type { InvitationRepository } from '../../src/application/ports/invitation-repository.port';
import type { UserRepository } from '../../src/application/ports/user-repository.port';
import { type ContractOptions, contractIt, invitationFor, type MakeStores, pendingUser, tokenHash } from './contract-kit';

/**
 * What InvitationRepository promises (src/application/ports/invitation-repository.port.ts). Every
 * invitation belongs to a user added first through the users of the same stores, as in the
 * application: the database refuses an invitation of no user (a foreign key), the fake takes it,
 * and the port says nothing of it (see the note in contracts.test.ts).
 */
export function describeInvitationRepositoryContract(
  name: string,
  makeSubject: MakeStores<'users' | 'invitations'>,
  options: ContractOptions = {},
): void {
  const test = contractIt(options);

  describe(`${name} honours the InvitationRepository contract`, () => {
    let users: UserRepository;
    let invitations: InvitationRepository;

    beforeEach(async () => {
      ({ users, invitations } = await makeSubject());
    });

    /** A pending user, stored, to hang invitations on. */
    const invitee = async (): Promise<string> => {
      const user = pendingUser();
      await users.add(user);
      return user.id;
    };

    describe('replaceForUser, then findByTokenHash', () => {
      test('finds a new invitation by its token hash as it was stored, dates to the millisecond, not used', async () => {
        const invitation = invitationFor(await invitee());
        await invitations.replaceForUser(invitation);
        const found = await invitations.findByTokenHash(invitation.tokenHash);
        expect(found).toEqual(invitation);
        expect(found?.usedAt).toBeUndefined();
        expect([found?.createdAt.toISOString(), found?.expiresAt.toISOString()]).toEqual(['2026-01-01T00:00:00.001Z', '2026-01-08T00:00:00.999Z']);
      });

      test('keeps the time a stored invitation was used', async () => {
        const invitation = invitationFor(await invitee(), { usedAt: new Date('2026-01-02T03:04:05.678Z') });
        await invitations.replaceForUser(invitation);
        expect(await invitations.findByTokenHash(invitation.tokenHash)).toEqual(invitation);
      });

      test('finds nothing for an unknown token hash', async () => {
        await invitations.replaceForUser(invitationFor(await invitee()));
        expect(await invitations.findByTokenHash(tokenHash('never issued'))).toBeNull();
      });

      test('keeps one invitation per user: a new one kills the old token', async () => {
        const userId = await invitee();
        const first = invitationFor(userId);
        await invitations.replaceForUser(first);
        const second = invitationFor(userId, { createdAt: new Date('2026-01-03T00:00:00.000Z'), expiresAt: new Date('2026-01-10T00:00:00.000Z') });
        await invitations.replaceForUser(second);
        expect(await invitations.findByTokenHash(first.tokenHash)).toBeNull();
        expect(await invitations.findByTokenHash(second.tokenHash)).toEqual(second);
      });

      test('replacing a used invitation gives a fresh, unused one that can be used', async () => {
        const userId = await invitee();
        await invitations.replaceForUser(invitationFor(userId, { usedAt: new Date('2026-01-02T00:00:00.000Z') }));
        const fresh = invitationFor(userId);
        await invitations.replaceForUser(fresh);
        expect((await invitations.findByTokenHash(fresh.tokenHash))?.usedAt).toBeUndefined();
        expect(await invitations.markUsed(userId, new Date('2026-01-04T00:00:00.000Z'))).toBe(true);
      });

      test("leaves other users' invitations alone", async () => {
        const [a, b] = [invitationFor(await invitee()), invitationFor(await invitee())];
        await invitations.replaceForUser(a);
        await invitations.replaceForUser(b);
        await invitations.replaceForUser(invitationFor(a.userId));
        expect(await invitations.findByTokenHash(b.tokenHash)).toEqual(b);
      });
    });

    describe('markUsed', () => {
      test('marks an unused invitation used once, at the given time: a second mark is false and keeps the first time', async () => {
        const invitation = invitationFor(await invitee());
        await invitations.replaceForUser(invitation);
        expect(await invitations.markUsed(invitation.userId, new Date('2026-02-02T02:02:02.002Z'))).toBe(true);
        expect(await invitations.markUsed(invitation.userId, new Date('2026-03-03T03:03:03.003Z'))).toBe(false);
        expect((await invitations.findByTokenHash(invitation.tokenHash))?.usedAt?.toISOString()).toBe('2026-02-02T02:02:02.002Z');
      });

      test('lets exactly one of concurrent marks win', async () => {
        const invitation = invitationFor(await invitee());
        await invitations.replaceForUser(invitation);
        const results = await Promise.all(Array.from({ length: 4 }, (_, i) => invitations.markUsed(invitation.userId, new Date(Date.UTC(2026, 1, 1, 0, 0, i)))));
        expect(results.filter(Boolean)).toHaveLength(1);
      });

      test('is false for a user without an invitation, and stores none', async () => {
        const userId = await invitee();
        expect(await invitations.markUsed(userId, new Date('2026-02-02T00:00:00.000Z'))).toBe(false);
        const later = invitationFor(userId);
        await invitations.replaceForUser(later);
        expect((await invitations.findByTokenHash(later.tokenHash))?.usedAt).toBeUndefined();
      });

      test('is false once the invitation is gone', async () => {
        const invitation = invitationFor(await invitee());
        await invitations.replaceForUser(invitation);
        await invitations.deleteForUser(invitation.userId);
        expect(await invitations.markUsed(invitation.userId, new Date('2026-02-02T00:00:00.000Z'))).toBe(false);
      });

      test("marks only that user's invitation", async () => {
        const [a, b] = [invitationFor(await invitee()), invitationFor(await invitee())];
        await invitations.replaceForUser(a);
        await invitations.replaceForUser(b);
        await invitations.markUsed(a.userId, new Date('2026-02-02T00:00:00.000Z'));
        expect((await invitations.findByTokenHash(b.tokenHash))?.usedAt).toBeUndefined();
      });
    });

    describe('deleteForUser', () => {
      test("removes the user's invitation, and only that one", async () => {
        const [a, b] = [invitationFor(await invitee()), invitationFor(await invitee())];
        await invitations.replaceForUser(a);
        await invitations.replaceForUser(b);
        await invitations.deleteForUser(a.userId);
        expect(await invitations.findByTokenHash(a.tokenHash)).toBeNull();
        expect(await invitations.findByTokenHash(b.tokenHash)).toEqual(b);
      });

      test('changes nothing for a user without an invitation, or called twice', async () => {
        const userId = await invitee();
        await expect(invitations.deleteForUser(userId)).resolves.toBeUndefined();
        const invitation = invitationFor(userId);
        await invitations.replaceForUser(invitation);
        await invitations.deleteForUser(userId);
        await expect(invitations.deleteForUser(userId)).resolves.toBeUndefined();
        expect(await invitations.findByTokenHash(invitation.tokenHash)).toBeNull();
      });
    });
  });
}
