import { EmailAlreadyTakenError, UserNotFoundError, UsernameAlreadyTakenError } from '../../../src/domain/users/user.errors';
import { type User } from '../../../src/domain/users/user';
import { InMemoryInvitationRepository } from '../../support/fakes/in-memory-invitation.repository';
import { InMemoryProcessedEventStore } from '../../support/fakes/in-memory-processed-event.store';
import { InvitationMother } from '../../support/mothers/invitation.mother';
import { InMemoryOutbox } from '../../support/fakes/in-memory-outbox';
import { InMemoryUnitOfWork } from '../../support/fakes/in-memory-unit-of-work';
import { InMemoryUserRepository } from '../../support/fakes/in-memory-user.repository';
import { SequentialIdGenerator } from '../../support/fakes/sequential-id-generator';
import { UserMother } from '../../support/mothers/user.mother';
import { changed, invited } from './fake-fixtures';

// The use-case tests are only as good as these fakes: they must keep the ports' real contracts (the persistence
// fakes are also held to them by test/contract, case for case with the TypeORM adapters).

describe('InMemoryUnitOfWork', () => {
  function setup() {
    const users = new InMemoryUserRepository();
    const outbox = new InMemoryOutbox();
    return { users, outbox, unitOfWork: new InMemoryUnitOfWork({ users, outbox }), ids: new SequentialIdGenerator() };
  }

  it('commits the users and events written by a successful work, and returns its result', async () => {
    const { users, outbox, unitOfWork, ids } = setup();
    const user = invited(ids, 'new@example.com');

    const result = await unitOfWork.run(async (scope) => {
      await scope.users.add(user);
      await scope.outbox.append(user.pullDomainEvents());
      return 'done';
    });

    expect(result).toBe('done');
    expect(users.count).toBe(1);
    expect(outbox.events).toHaveLength(1);
    expect(unitOfWork.commits).toBe(1);
  });

  it('rolls everything back when the work fails after writing', async () => {
    const { users, outbox, unitOfWork, ids } = setup();
    const user = invited(ids, 'new@example.com');

    const run = unitOfWork.run(async (scope) => {
      await scope.users.add(user);
      await scope.outbox.append(user.pullDomainEvents());
      throw new Error('boom');
    });

    await expect(run).rejects.toThrow('boom');
    expect(users.count).toBe(0);
    expect(outbox.events).toEqual([]);
    expect(unitOfWork.rollbacks).toBe(1);
  });

  it('keeps uncommitted writes invisible outside the transaction', async () => {
    const { users, unitOfWork, ids } = setup();
    const user = invited(ids, 'new@example.com');
    let seenOutside: boolean | undefined;

    await unitOfWork.run(async (scope) => {
      await scope.users.add(user);
      seenOutside = await users.existsWithEmail('new@example.com');
      await expect(scope.users.existsWithEmail('new@example.com')).resolves.toBe(true);
    });

    expect(seenOutside).toBe(false);
    expect(users.count).toBe(1);
  });

  it('fails the later of two conflicting commits as a unique index would, applying none of its writes', async () => {
    const { users, outbox, unitOfWork, ids } = setup();
    const first = invited(ids, 'same@example.com');
    const second = invited(ids, 'SAME@example.com');
    const other = invited(ids, 'other@example.com');

    const outcomes = await Promise.allSettled([
      unitOfWork.run(async (scope) => {
        await scope.users.add(first);
        await scope.outbox.append(first.pullDomainEvents());
      }),
      unitOfWork.run(async (scope) => {
        await scope.users.add(other);
        await scope.users.add(second);
        await scope.outbox.append(second.pullDomainEvents());
      }),
    ]);

    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(EmailAlreadyTakenError);
    expect(users.all().map((u) => u.id)).toEqual([first.id]);
    expect(outbox.events.map((e) => e.aggregateId)).toEqual([first.id]);
  });

  it('refuses use of the transaction scope after it ended', async () => {
    const { unitOfWork } = setup();
    let leaked: Parameters<Parameters<InMemoryUnitOfWork['run']>[0]>[0] | undefined;

    await unitOfWork.run(async (scope) => {
      leaked = scope;
    });

    await expect(leaked!.users.findById('x')).rejects.toThrow(/after its transaction ended/);
    await expect(leaked!.outbox.append([])).rejects.toThrow(/after its transaction ended/);
  });
});

describe('InMemoryUnitOfWork with updates, deletes, invitations and processed events', () => {
  function setup(seed: User[] = []) {
    const users = new InMemoryUserRepository(seed);
    const outbox = new InMemoryOutbox();
    const invitations = new InMemoryInvitationRepository();
    const processedEvents = new InMemoryProcessedEventStore();
    const unitOfWork = new InMemoryUnitOfWork({ users, outbox, invitations, processedEvents });
    return { users, outbox, invitations, processedEvents, unitOfWork };
  }

  it('commits updates, deletes, invitations and processed events of a successful work', async () => {
    const updated = UserMother.pending();
    const deleted = UserMother.pending();
    const { users, invitations, processedEvents, unitOfWork } = setup([updated, deleted]);
    const { invitation } = InvitationMother.valid(updated.id);

    await unitOfWork.run(async (scope) => {
      await scope.users.update(changed(updated, { name: 'Renamed' }));
      await scope.users.delete(deleted);
      await scope.invitations.replaceForUser(invitation);
      await scope.invitations.markUsed(invitation, new Date('2026-02-01T00:00:00.000Z'));
      await scope.processedEvents.record('mailer', 'e1', new Date());
    });

    expect(users.all().map((u) => [u.id, u.name])).toEqual([[updated.id, 'Renamed']]);
    expect(invitations.forUser(updated.id)).toEqual({ ...invitation, usedAt: new Date('2026-02-01T00:00:00.000Z') });
    expect(processedEvents.isRecorded('mailer', 'e1')).toBe(true);
  });

  it('keeps updates, deletes, invitations and processed events invisible outside until commit', async () => {
    const updated = UserMother.pending();
    const deleted = UserMother.pending();
    const { users, invitations, processedEvents, unitOfWork } = setup([updated, deleted]);
    const { invitation } = InvitationMother.valid(updated.id);
    const seenOutside: unknown[] = [];

    await unitOfWork.run(async (scope) => {
      await scope.users.update(changed(updated, { name: 'Renamed' }));
      await scope.users.delete(deleted);
      await scope.invitations.replaceForUser(invitation);
      await scope.processedEvents.record('mailer', 'e1', new Date());
      seenOutside.push(
        (await users.findById(updated.id))!.name,
        (await users.findById(deleted.id)) !== null,
        await invitations.findByTokenHash(invitation.tokenHash),
        await processedEvents.has('mailer', 'e1'),
      );
      await expect(scope.invitations.findByTokenHash(invitation.tokenHash)).resolves.toEqual(invitation);
      await expect(scope.processedEvents.has('mailer', 'e1')).resolves.toBe(true);
      await expect(scope.users.findById(deleted.id)).resolves.toBeNull();
    });

    expect(seenOutside).toEqual([undefined, true, null, false]);
  });

  it('leaves users, outbox, invitations and processed events untouched when the work fails', async () => {
    const updated = UserMother.pending({ name: 'Before' });
    const deleted = UserMother.pending();
    const { users, outbox, invitations, processedEvents, unitOfWork } = setup([updated, deleted]);
    const old = InvitationMother.valid(updated.id);
    invitations.seed(old.invitation);
    processedEvents.seed('mailer', 'old-event');
    const user = invited(new SequentialIdGenerator(0xfe), 'new@example.com');

    const run = unitOfWork.run(async (scope) => {
      await scope.users.update(changed(updated, { name: 'After' }));
      await scope.users.delete(deleted);
      await scope.users.add(user);
      await scope.outbox.append(user.pullDomainEvents());
      const replaced = InvitationMother.valid(updated.id).invitation;
      await scope.invitations.replaceForUser(replaced);
      await scope.invitations.markUsed(replaced, new Date());
      await scope.processedEvents.record('mailer', 'new-event', new Date());
      throw new Error('boom');
    });

    await expect(run).rejects.toThrow('boom');
    expect(users.all().map((u) => [u.id, u.name])).toEqual([
      [updated.id, 'Before'],
      [deleted.id, undefined],
    ]);
    expect(outbox.events).toEqual([]);
    expect(invitations.all()).toEqual([old.invitation]);
    expect(processedEvents.all().map((e) => e.eventId)).toEqual(['old-event']);
    expect(unitOfWork.rollbacks).toBe(1);
  });

  it('re-checks an updated username at commit: the later of two transactions taking one username fails, applying nothing', async () => {
    const first = UserMother.pending();
    const second = UserMother.pending();
    const { users, invitations, processedEvents, unitOfWork } = setup([first, second]);

    const outcomes = await Promise.allSettled([
      unitOfWork.run(async (scope) => {
        await scope.users.update(changed(first, { username: 'Taken' }));
      }),
      unitOfWork.run(async (scope) => {
        await scope.invitations.replaceForUser(InvitationMother.valid(second.id).invitation);
        await scope.processedEvents.record('mailer', 'e2', new Date());
        await scope.users.update(changed(second, { username: 'tAKEN' }));
      }),
    ]);

    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(UsernameAlreadyTakenError);
    expect(users.all().map((u) => u.username)).toEqual(['Taken', undefined]);
    expect(invitations.count).toBe(0);
    expect(processedEvents.count).toBe(0);
  });

  it('refuses the commit of an update of a row a concurrent transaction deleted meanwhile (UserNotFoundError)', async () => {
    const user = UserMother.pending();
    const { users, unitOfWork } = setup([user]);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));

    const updating = unitOfWork.run(async (scope) => {
      await scope.users.update(changed(user, { name: 'late update' }));
      await held;
    });
    await unitOfWork.run((scope) => scope.users.delete(user));
    release();
    await expect(updating).rejects.toBeInstanceOf(UserNotFoundError);

    expect(users.count).toBe(0);
  });

  it('refuses use of the new scope members after the transaction ended', async () => {
    const { unitOfWork } = setup();
    let leaked: Parameters<Parameters<InMemoryUnitOfWork['run']>[0]>[0] | undefined;

    await unitOfWork.run(async (scope) => {
      leaked = scope;
    });

    await expect(leaked!.invitations.findByTokenHash('x')).rejects.toThrow(/after its transaction ended/);
    await expect(leaked!.processedEvents.has('mailer', 'e')).rejects.toThrow(/after its transaction ended/);
    await expect(leaked!.users.update(UserMother.pending())).rejects.toThrow(/after its transaction ended/);
    await expect(leaked!.users.delete(UserMother.pending())).rejects.toThrow(/after its transaction ended/);
  });

  it('gives empty invitations and processed events when built with users and outbox only', async () => {
    const unitOfWork = new InMemoryUnitOfWork({ users: new InMemoryUserRepository(), outbox: new InMemoryOutbox() });

    await unitOfWork.run(async (scope) => {
      await scope.processedEvents.record('mailer', 'e1', new Date());
    });

    expect(unitOfWork.processedEvents.isRecorded('mailer', 'e1')).toBe(true);
    expect(unitOfWork.invitations.count).toBe(0);
  });
});
