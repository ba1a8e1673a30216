import type { TransactionScope } from '../../src/application/ports/unit-of-work.port';
import { InvitationUsedError } from '../../src/domain/invitations/invitation.errors';
import type { User } from '../../src/domain/users/user';
import { EmailAlreadyTakenError } from '../../src/domain/users/user.errors';
import { byId, type ContractOptions, type ContractStores, contractIt, invitationFor, type MakeStores, member, newId, pendingUser } from './contract-kit';

const AT = new Date('2026-01-31T12:00:00.123Z');

/** Titles of the cases an implementation may list in `knownDivergences`. */
export const UNIT_OF_WORK_CASES = {
  isolatedFromReadsOutside: "keeps a run's writes from readers outside it: a read made meanwhile does not see what is then rolled back",
  outsideWritesSurviveRollback: 'leaves a write made outside it alone when it rolls back: a sign-out during a failing run stays',
  listInsideRun: "lists, inside a run, a total counting the run's own adds; after a commit or a rollback, the exact total",
} as const;

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A run that adds a user, then waits for `release()` and fails: `entered` settles once the add is made. */
function heldRun(stores: ContractStores, user: User) {
  let release!: () => void;
  let entered!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const inside = new Promise<void>((resolve) => (entered = resolve));
  const run = stores.unitOfWork
    .run(async ({ users }) => {
      await users.add(user);
      entered();
      await gate;
      throw new Error('held run fails');
    })
    .then(
      () => 'committed',
      () => 'rolled back',
    );
  return { entered: inside, release, run };
}

/**
 * What UnitOfWork promises (src/application/ports/unit-of-work.port.ts): `work` runs in one
 * transaction, all of it commits or none of it. Checked through every store of the scope, read
 * back through the plain stores (outside any unit of work) once `run` has settled.
 */
export function describeUnitOfWorkContract(name: string, makeSubject: MakeStores, options: ContractOptions = {}): void {
  const test = contractIt(options);

  describe(`${name} honours the UnitOfWork contract`, () => {
    let stores: ContractStores;

    beforeEach(async () => {
      stores = await makeSubject();
    });

    /** One write to every store of the scope: a user, its invitation and event, a handled event. */
    const writeEverything = async (scope: TransactionScope, user: User, handledEventId: string) => {
      await scope.users.add(user);
      await scope.invitations.replaceForUser(invitationFor(user.id, { tokenHash: tokenOf(user) }));
      await scope.outbox.append(user.pullDomainEvents());
      await scope.processedEvents.record('contract', handledEventId, AT);
    };
    const tokenOf = (user: User) => user.id.replace(/-/g, '').padEnd(64, '0');

    /** What the plain stores show of `writeEverything(user, handledEventId)`, as [user, invitation, events, handled]. */
    const visible = async (user: User, handledEventId: string) => [
      (await stores.users.findById(user.id))?.toSnapshot() ?? null,
      (await stores.invitations.findByTokenHash(tokenOf(user)))?.userId ?? null,
      (await stores.storedEvents()).filter((e) => e.aggregateId === user.id).map((e) => e.type),
      await stores.processedEvents.has('contract', handledEventId),
    ];

    test('returns what the work returns', async () => {
      await expect(stores.unitOfWork.run(async () => ({ answer: 42 }))).resolves.toEqual({ answer: 42 });
    });

    test('commits every write of a work that succeeds: all of them are visible afterwards', async () => {
      const [user, handled] = [pendingUser(), newId()];
      await stores.unitOfWork.run((scope) => writeEverything(scope, user, handled));
      expect(await visible(user, handled)).toEqual([user.toSnapshot(), user.id, ['UserInvited'], true]);
    });

    test('rolls back every write of a work that throws, and rejects with its very error', async () => {
      const [user, handled] = [pendingUser(), newId()];
      const failure = new Error('boom after every write');
      await expect(
        stores.unitOfWork.run(async (scope) => {
          await writeEverything(scope, user, handled);
          throw failure;
        }),
      ).rejects.toBe(failure);
      expect(await visible(user, handled)).toEqual([null, null, [], false]);
    });

    test('rolls back changes to existing rows too: an update, a mark, a delete and a sign-out', async () => {
      const user = pendingUser();
      const invitation = invitationFor(user.id);
      const other = pendingUser();
      await stores.unitOfWork.run(async ({ users, invitations }) => {
        await users.add(user);
        await users.add(other);
        await invitations.replaceForUser(invitation);
      });
      await expect(
        stores.unitOfWork.run(async ({ users, invitations }) => {
          const loaded = (await users.findById(user.id))!;
          loaded.resendInvitation({ by: other.id, role: member, now: AT, newId });
          await users.update(loaded);
          await users.incrementTokenVersion(user.id);
          expect(await invitations.markUsed(invitation, AT)).toBe(true);
          await users.delete(other);
          throw new Error('changed my mind');
        }),
      ).rejects.toThrow('changed my mind');
      expect((await stores.users.findById(user.id))?.toSnapshot()).toEqual(user.toSnapshot());
      expect((await stores.users.findById(other.id))?.id).toBe(other.id);
      expect(await stores.invitations.findByTokenHash(invitation.tokenHash)).toEqual(invitation);
      expect((await stores.users.list({ offset: 0, limit: 10 })).total).toBe(2);
    });

    test("lets the work read its own writes before they commit", async () => {
      const [user, handled] = [pendingUser(), newId()];
      const seen = await stores.unitOfWork.run(async (scope) => {
        await writeEverything(scope, user, handled);
        return [
          (await scope.users.findById(user.id))?.id,
          await scope.users.existsWithEmail(user.email.toUpperCase()),
          (await scope.invitations.findByTokenHash(tokenOf(user)))?.userId,
          await scope.processedEvents.has('contract', handled),
        ];
      });
      expect(seen).toEqual([user.id, true, user.id, true]);
    });

    test('keeps concurrent runs apart: the failing ones leave nothing, the others everything', async () => {
      const batch = Array.from({ length: 6 }, () => [pendingUser(), newId()] as const);
      const outcomes = await Promise.allSettled(
        batch.map(([user, handled], i) =>
          stores.unitOfWork.run(async (scope) => {
            await writeEverything(scope, user, handled);
            if (i % 2 === 1) throw new Error(`run ${i} fails`);
          }),
        ),
      );
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled', 'rejected']);
      for (const [i, [user, handled]] of batch.entries()) {
        expect(await visible(user, handled)).toEqual(i % 2 ? [null, null, [], false] : [user.toSnapshot(), user.id, ['UserInvited'], true]);
      }
      expect(byId(await stores.storedEvents()).map((e) => e.aggregateId)).toEqual(byId(batch.filter((_, i) => i % 2 === 0).map(([u]) => u)).map((u) => u.id));
    });

    test('lets one of two concurrent runs take an e-mail: the other fails with EmailAlreadyTakenError and leaves nothing', async () => {
      const rivals = [pendingUser('rivals@example.com'), pendingUser('Rivals@Example.com')];
      const outcomes = await Promise.allSettled(
        rivals.map((user) =>
          stores.unitOfWork.run(async ({ users, outbox }) => {
            const events = user.pullDomainEvents();
            await users.add(user);
            await outbox.append(events);
          }),
        ),
      );
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      const [lost] = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
      expect(lost?.reason).toBeInstanceOf(EmailAlreadyTakenError);
      const winner = rivals[outcomes.findIndex((o) => o.status === 'fulfilled')]!;
      expect((await stores.users.list({ offset: 0, limit: 10 })).items.map((u) => u.id)).toEqual([winner.id]);
      expect((await stores.storedEvents()).map((e) => e.aggregateId)).toEqual([winner.id]);
    });

    test('lets one of two concurrent acceptances use an invitation: the other sees it used', async () => {
      const user = pendingUser();
      const invitation = invitationFor(user.id);
      await stores.unitOfWork.run(async ({ users, invitations }) => {
        await users.add(user);
        await invitations.replaceForUser(invitation);
      });
      const times = [new Date('2026-02-01T00:00:00.001Z'), new Date('2026-02-01T00:00:00.002Z')];
      // As accept-invitation does: a false mark means another acceptance won.
      const outcomes = await Promise.allSettled(
        times.map((at) =>
          stores.unitOfWork.run(async ({ invitations }) => {
            if (!(await invitations.markUsed(invitation, at))) throw new InvitationUsedError();
          }),
        ),
      );
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      const [lost] = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
      expect(lost?.reason).toBeInstanceOf(InvitationUsedError);
      const won = times[outcomes.findIndex((o) => o.status === 'fulfilled')]!;
      expect((await stores.invitations.findByTokenHash(invitation.tokenHash))?.usedAt).toEqual(won);
    });

    test(UNIT_OF_WORK_CASES.isolatedFromReadsOutside, async () => {
      const user = pendingUser();
      const held = heldRun(stores, user);
      await held.entered;
      // A read may wait for the run to end (a locking store) but must never see its uncommitted row.
      const read = Promise.all([stores.users.findById(user.id).then((found) => found?.id ?? null), stores.users.existsWithEmail(user.email)]);
      await Promise.race([read, pause(100)]);
      held.release();
      expect(await held.run).toBe('rolled back');
      expect(await read).toEqual([null, false]);
    });

    test(UNIT_OF_WORK_CASES.outsideWritesSurviveRollback, async () => {
      const signedIn = pendingUser();
      await stores.users.add(signedIn);
      const held = heldRun(stores, pendingUser());
      await held.entered;
      // As sign-out does: outside any unit of work. It may wait for the run to end, but not share its fate.
      const signOut = stores.users.incrementTokenVersion(signedIn.id);
      await Promise.race([signOut, pause(100)]);
      held.release();
      expect(await held.run).toBe('rolled back');
      await signOut;
      expect((await stores.users.findById(signedIn.id))?.tokenVersion).toBe(1);
    });

    test(UNIT_OF_WORK_CASES.listInsideRun, async () => {
      const page = { offset: 0, limit: 10 };
      const inside = await stores.unitOfWork.run(async ({ users }) => {
        await users.add(pendingUser());
        const { items, total } = await users.list(page);
        return [items.length, total];
      });
      expect(inside).toEqual([1, 1]);
      expect((await stores.users.list(page)).total).toBe(1);
      await expect(
        stores.unitOfWork.run(async ({ users }) => {
          await users.add(pendingUser());
          expect((await users.list(page)).total).toBe(2);
          throw new Error('rolled back after listing');
        }),
      ).rejects.toThrow('rolled back after listing');
      expect((await stores.users.list(page)).total).toBe(1);
    });

    test('loses no sign-out when runs bump one token version concurrently', async () => {
      const user = pendingUser();
      await stores.users.add(user);
      await Promise.all(Array.from({ length: 3 }, () => stores.unitOfWork.run(({ users }) => users.incrementTokenVersion(user.id))));
      expect((await stores.users.findById(user.id))?.tokenVersion).toBe(3);
    });
  });
}
