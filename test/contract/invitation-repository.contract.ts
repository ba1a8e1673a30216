import type { InvitationRepository } from '../../src/application/ports/invitation-repository.port';
import type { UserRepository } from '../../src/application/ports/user-repository.port';
import { type ContractOptions, contractIt, invitationFor, type MakeStores, pendingUser } from './contract-kit';

/**
 * What InvitationRepository adds to the single-use links it shares with the password resets
 * (single-use-token-store.contract.ts holds both): deleting a user's invitation. Every invitation
 * belongs to a user added first, as in the application.
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

    describe('findForUser', () => {
      test("finds the user's current invitation, used or not, and null for a user without one", async () => {
        const userId = await invitee();
        expect(await invitations.findForUser(userId)).toBeNull();
        const first = invitationFor(userId);
        await invitations.replaceForUser(first);
        expect(await invitations.findForUser(userId)).toEqual(first);
        const resent = { ...invitationFor(userId), expiresAt: new Date(first.expiresAt.getTime() + 60_000) };
        await invitations.replaceForUser(resent);
        expect(await invitations.findForUser(userId)).toEqual(resent);
        const at = new Date('2026-02-02T00:00:00.000Z');
        expect(await invitations.markUsed(resent, at)).toBe(true);
        expect(await invitations.findForUser(userId)).toEqual({ ...resent, usedAt: at });
        await invitations.deleteForUser(userId);
        expect(await invitations.findForUser(userId)).toBeNull();
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

      test('a deleted invitation can no longer be marked used', async () => {
        const invitation = invitationFor(await invitee());
        await invitations.replaceForUser(invitation);
        await invitations.deleteForUser(invitation.userId);
        expect(await invitations.markUsed(invitation, new Date('2026-02-02T00:00:00.000Z'))).toBe(false);
      });
    });
  });
}
