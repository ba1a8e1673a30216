import { MailDeliveryError } from '../../../src/application/ports/mailer.port';
import { EmailAlreadyTakenError, UserNotFoundError, UsernameAlreadyTakenError } from '../../../src/domain/users/user.errors';
import { Email } from '../../../src/domain/users/email';
import { User } from '../../../src/domain/users/user';
import { Username } from '../../../src/domain/users/username';
import { FakeSecretTokens, sha256Of } from '../../support/fakes/fake-secret-tokens';
import { InMemoryInvitationRepository } from '../../support/fakes/in-memory-invitation.repository';
import { InMemoryProcessedEventStore } from '../../support/fakes/in-memory-processed-event.store';
import { RecordingMailer } from '../../support/fakes/recording-mailer';
import { InvitationMother } from '../../support/mothers/invitation.mother';
import { FakePasswordHasher } from '../../support/fakes/fake-password-hasher';
import { FakeTokenIssuer } from '../../support/fakes/fake-token-issuer';
import { FixedClock } from '../../support/fakes/fixed-clock';
import { InMemoryOutbox } from '../../support/fakes/in-memory-outbox';
import { InMemoryUnitOfWork } from '../../support/fakes/in-memory-unit-of-work';
import { InMemoryUserRepository } from '../../support/fakes/in-memory-user.repository';
import { SequentialIdGenerator } from '../../support/fakes/sequential-id-generator';
import { RoleMother } from '../../support/mothers/role.mother';
import { UserMother } from '../../support/mothers/user.mother';

// The use-case tests are only as good as these fakes: they must keep the ports' real contracts.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function invited(ids: SequentialIdGenerator, email: string): User {
  return User.invite({
    id: ids.next(),
    email: Email.parse(email),
    role: RoleMother.member(),
    invitedBy: ids.next(),
    now: new Date(),
    newId: () => ids.next(),
  });
}

describe('InMemoryUserRepository', () => {
  it('answers asynchronously, never in the same turn', async () => {
    const users = new InMemoryUserRepository([UserMother.joined({ username: 'ada' })]);
    let settled = false;

    const pending = users.findByUsername('ada').then(() => (settled = true));
    await Promise.resolve();

    expect(settled).toBe(false);
    await pending;
    expect(settled).toBe(true);
  });

  it('refuses a second user with the same e-mail in another case', async () => {
    const users = new InMemoryUserRepository([UserMother.pending({ email: 'ada@example.com' })]);

    await expect(users.add(UserMother.joined({ email: 'ADA@Example.com' }))).rejects.toBeInstanceOf(EmailAlreadyTakenError);
    expect(users.count).toBe(1);
  });

  it('refuses a second user with the same username in another case, but allows many pending users without one', async () => {
    const users = new InMemoryUserRepository([UserMother.joined({ username: 'Ada' })]);

    await expect(users.add(UserMother.joined({ username: 'aDA' }))).rejects.toBeInstanceOf(UsernameAlreadyTakenError);
    await users.add(UserMother.pending());
    await users.add(UserMother.pending());
    expect(users.count).toBe(3);
  });

  it('finds by username and e-mail case-insensitively', async () => {
    const users = new InMemoryUserRepository([UserMother.joined({ username: 'Ada.L', email: 'Ada@Example.com' })]);

    expect((await users.findByUsername('ADA.l'))?.username).toBe('Ada.L');
    await expect(users.existsWithEmail('ada@EXAMPLE.com')).resolves.toBe(true);
    await expect(users.existsWithUsername('ada.l')).resolves.toBe(true);
    await expect(users.existsWithEmail('other@example.com')).resolves.toBe(false);
  });

  it('lists by id whatever the insertion order, with the total', async () => {
    const ids = new SequentialIdGenerator();
    const created = [1, 2, 3, 4].map(() => UserMother.joined({ id: ids.next() }));
    const users = new InMemoryUserRepository([created[2], created[0], created[3], created[1]]);

    const page = await users.list({ offset: 1, limit: 2 });

    expect(page.total).toBe(4);
    expect(page.items.map((u) => u.id)).toEqual([created[1].id, created[2].id]);
  });

  it('stores rows, not live objects: pending domain events are not carried through a save', async () => {
    const users = new InMemoryUserRepository();
    const user = invited(new SequentialIdGenerator(), 'new@example.com');

    await users.add(user);

    expect((await users.findById(user.id))!.pullDomainEvents()).toEqual([]);
    expect(await users.findById(user.id)).not.toBe(await users.findById(user.id));
  });
});

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

describe('InMemoryOutbox', () => {
  it('stores the event data as JSON, as the payload column does', async () => {
    const outbox = new InMemoryOutbox();
    const occurredAt = new Date('2026-01-01T00:00:00.000Z');

    await outbox.append([{ id: 'e1', type: 'Something', aggregateId: 'a1', occurredAt, data: { at: occurredAt, gone: undefined } }]);

    expect(outbox.events[0].data).toEqual({ at: '2026-01-01T00:00:00.000Z' });
    expect(outbox.events[0].data).not.toHaveProperty('gone');
  });

  it('fails the next append once when armed', async () => {
    const outbox = new InMemoryOutbox();
    outbox.failNextAppendWith(new Error('down'));

    await expect(outbox.append([])).rejects.toThrow('down');
    await expect(outbox.append([])).resolves.toBeUndefined();
  });
});

describe('FakePasswordHasher', () => {
  it('verifies a hash it made, and counts every verification, including those against no hash', async () => {
    const hasher = new FakePasswordHasher();
    const hash = await hasher.hash('correct horse battery staple');

    expect(hash).not.toContain('correct horse battery staple');
    await expect(hasher.verify('correct horse battery staple', hash)).resolves.toBe(true);
    await expect(hasher.verify('wrong', hash)).resolves.toBe(false);
    await expect(hasher.verify('correct horse battery staple', undefined)).resolves.toBe(false);
    expect(hasher.verifyCalls).toBe(3);
    expect(hasher.hashCalls).toBe(1);
  });
});

describe('FixedClock', () => {
  it('stands still until set or advanced, and hands out copies', () => {
    const clock = new FixedClock('2026-01-01T00:00:00.000Z');
    clock.now().setFullYear(1999);

    expect(clock.now().toISOString()).toBe('2026-01-01T00:00:00.000Z');
    clock.advance(1500);
    expect(clock.now().toISOString()).toBe('2026-01-01T00:00:01.500Z');
    clock.set('2030-06-01T12:00:00.000Z');
    expect(clock.now().toISOString()).toBe('2030-06-01T12:00:00.000Z');
  });
});

describe('SequentialIdGenerator', () => {
  it('hands out distinct UUID-shaped ids that sort in creation order', () => {
    const ids = new SequentialIdGenerator();
    const made = Array.from({ length: 300 }, () => ids.next());

    expect(made.every((id) => UUID.test(id))).toBe(true);
    expect(new Set(made).size).toBe(made.length);
    expect([...made].sort()).toEqual(made);
  });

  it('keeps generators of different namespaces apart', () => {
    expect(new SequentialIdGenerator(1).next()).not.toBe(new SequentialIdGenerator(2).next());
  });
});

describe('FakeTokenIssuer', () => {
  it('issues a distinct token per call, expiring after its lifetime', async () => {
    const clock = new FixedClock('2026-01-01T00:00:00.000Z');
    const tokens = new FakeTokenIssuer(clock, 60);

    const a = await tokens.issue('user-1', 0);
    const b = await tokens.issue('user-1', 0);

    expect(a.token).not.toBe(b.token);
    expect(a.expiresAt.toISOString()).toBe('2026-01-01T00:01:00.000Z');
    expect(tokens.issued.map((t) => t.subject)).toEqual(['user-1', 'user-1']);
  });
});

/** The same user with other props, as a use case would save it after a change. */
function changed(user: User, props: Partial<ReturnType<User['toSnapshot']>>): User {
  return User.restore({ ...user.toSnapshot(), ...props });
}

describe('InMemoryUserRepository.update and delete', () => {
  it('saves the changed user: later reads see the change', async () => {
    const pending = UserMother.pending({ email: 'grace@example.com' });
    const users = new InMemoryUserRepository([pending]);

    await users.update(changed(pending, { username: 'grace', name: 'Grace Hopper' }));

    const read = (await users.findById(pending.id))!;
    expect(read.username).toBe('grace');
    expect(read.name).toBe('Grace Hopper');
    expect((await users.findByUsername('GRACE'))?.id).toBe(pending.id);
    expect(users.count).toBe(1);
  });

  it('refuses a username another user holds in another case, leaving the row as it was', async () => {
    const pending = UserMother.pending();
    const users = new InMemoryUserRepository([UserMother.joined({ username: 'Ada' }), pending]);

    await expect(users.update(changed(pending, { username: 'aDA' }))).rejects.toBeInstanceOf(UsernameAlreadyTakenError);
    expect((await users.findById(pending.id))!.username).toBeUndefined();
  });

  it('lets a user keep, or change the case of, its own username', async () => {
    const ada = UserMother.joined({ username: 'ada' });
    const users = new InMemoryUserRepository([ada]);

    await users.update(changed(ada, { name: 'Ada L.' }));
    await users.update(changed((await users.findById(ada.id))!, { username: 'ADA' }));

    expect((await users.findById(ada.id))!.username).toBe('ADA');
  });

  it('finds the user by the username an update gave it, and no longer by the one it dropped', async () => {
    const ada = UserMother.joined({ username: 'ada' });
    const users = new InMemoryUserRepository([ada]);

    await users.update(changed(ada, { username: Username.parse('lovelace').value }));

    await expect(users.findByUsername('ada')).resolves.toBeNull();
    await expect(users.existsWithUsername('ada')).resolves.toBe(false);
    await expect(users.existsWithUsername('LOVELACE')).resolves.toBe(true);
  });

  it('refuses an update of a user that does not exist with UserNotFoundError, storing nothing', async () => {
    const users = new InMemoryUserRepository();

    await expect(users.update(UserMother.pending())).rejects.toBeInstanceOf(UserNotFoundError);

    expect(users.count).toBe(0);
  });

  it('deletes by id, frees the e-mail, and ignores an unknown id', async () => {
    const pending = UserMother.pending({ email: 'gone@example.com' });
    const kept = UserMother.joined();
    const users = new InMemoryUserRepository([pending, kept]);

    await users.delete(pending.id);
    await users.delete('no-such-id');

    await expect(users.findById(pending.id)).resolves.toBeNull();
    await expect(users.existsWithEmail('gone@example.com')).resolves.toBe(false);
    expect(users.all().map((u) => u.id)).toEqual([kept.id]);
  });

  it('answers update and delete asynchronously', async () => {
    const pending = UserMother.pending();
    const users = new InMemoryUserRepository([pending]);
    let settled = 0;

    const running = Promise.all([
      users.update(changed(pending, { name: 'x' })).then(() => (settled += 1)),
      users.delete(pending.id).then(() => (settled += 1)),
    ]);
    await Promise.resolve();

    expect(settled).toBe(0);
    await running;
    expect(settled).toBe(2);
  });
});

describe('InMemoryInvitationRepository', () => {
  it('keeps one invitation per user: a replacement kills the old token hash', async () => {
    const invitations = new InMemoryInvitationRepository();
    const first = InvitationMother.valid('user-1');
    const second = InvitationMother.valid('user-1');

    await invitations.replaceForUser(first.invitation);
    await invitations.replaceForUser(second.invitation);

    await expect(invitations.findByTokenHash(first.invitation.tokenHash)).resolves.toBeNull();
    await expect(invitations.findByTokenHash(second.invitation.tokenHash)).resolves.toEqual(second.invitation);
    expect(invitations.count).toBe(1);
  });

  it('refuses a token hash that another user\'s invitation holds (unique index)', async () => {
    const theirs = InvitationMother.valid('user-1', { token: 'same' });
    const invitations = new InMemoryInvitationRepository([theirs.invitation]);

    await expect(invitations.replaceForUser(InvitationMother.valid('user-2', { token: 'same' }).invitation)).rejects.toThrow(
      /duplicate token hash/,
    );
    expect(invitations.all()).toEqual([theirs.invitation]);
  });

  it('marks only that user\'s invitation used, and ignores a user without one', async () => {
    const mine = InvitationMother.valid('user-1');
    const theirs = InvitationMother.valid('user-2');
    const invitations = new InMemoryInvitationRepository([mine.invitation, theirs.invitation]);
    const at = new Date('2026-01-31T13:00:00.000Z');

    await invitations.markUsed('user-1', at);
    await invitations.markUsed('user-3', at);

    expect((await invitations.findByTokenHash(mine.invitation.tokenHash))!.usedAt).toEqual(at);
    expect((await invitations.findByTokenHash(theirs.invitation.tokenHash))!.usedAt).toBeUndefined();
    expect(invitations.count).toBe(2);
  });

  it('deletes the user\'s invitation', async () => {
    const mine = InvitationMother.valid('user-1');
    const invitations = new InMemoryInvitationRepository([mine.invitation, InvitationMother.valid('user-2').invitation]);

    await invitations.deleteForUser('user-1');

    await expect(invitations.findByTokenHash(mine.invitation.tokenHash)).resolves.toBeNull();
    expect(invitations.forUser('user-1')).toBeUndefined();
    expect(invitations.all().map((i) => i.userId)).toEqual(['user-2']);
  });

  it('stores rows, not the objects given or handed out', async () => {
    const { invitation } = InvitationMother.valid('user-1');
    const given = { ...invitation, expiresAt: new Date(invitation.expiresAt) };
    const invitations = new InMemoryInvitationRepository();

    await invitations.replaceForUser(given);
    given.expiresAt.setFullYear(2000);
    (await invitations.findByTokenHash(invitation.tokenHash))!.expiresAt.setFullYear(2001);

    expect(invitations.forUser('user-1')!.expiresAt).toEqual(invitation.expiresAt);
  });

  it('answers asynchronously', async () => {
    const invitations = new InMemoryInvitationRepository();
    let settled = false;

    const pending = invitations.findByTokenHash('x').then(() => (settled = true));
    await Promise.resolve();

    expect(settled).toBe(false);
    await pending;
    expect(settled).toBe(true);
  });
});

describe('InMemoryProcessedEventStore', () => {
  it('knows an event once recorded, per consumer', async () => {
    const store = new InMemoryProcessedEventStore();

    await expect(store.has('mailer', 'e1')).resolves.toBe(false);
    await store.record('mailer', 'e1', new Date('2026-01-01T00:00:00.000Z'));

    await expect(store.has('mailer', 'e1')).resolves.toBe(true);
    await expect(store.has('mailer', 'e2')).resolves.toBe(false);
    await expect(store.has('other', 'e1')).resolves.toBe(false);
  });

  it('accepts a second record of the same event (a racing redelivery), keeping the first', async () => {
    const store = new InMemoryProcessedEventStore();

    await store.record('mailer', 'e1', new Date('2026-01-01T00:00:00.000Z'));
    await expect(store.record('mailer', 'e1', new Date('2026-01-02T00:00:00.000Z'))).resolves.toBeUndefined();

    expect(store.all()).toEqual([{ consumer: 'mailer', eventId: 'e1', at: new Date('2026-01-01T00:00:00.000Z') }]);
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
      await scope.users.delete(deleted.id);
      await scope.invitations.replaceForUser(invitation);
      await scope.invitations.markUsed(updated.id, new Date('2026-02-01T00:00:00.000Z'));
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
      await scope.users.delete(deleted.id);
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
      await scope.users.delete(deleted.id);
      await scope.users.add(user);
      await scope.outbox.append(user.pullDomainEvents());
      await scope.invitations.replaceForUser(InvitationMother.valid(updated.id).invitation);
      await scope.invitations.markUsed(updated.id, new Date());
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
    await unitOfWork.run((scope) => scope.users.delete(user.id));
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
    await expect(leaked!.users.delete('x')).rejects.toThrow(/after its transaction ended/);
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

describe('FakeSecretTokens', () => {
  it('hands out distinct, deterministic, URL-safe tokens whose hash is their real SHA-256', () => {
    const tokens = new FakeSecretTokens();
    const made = Array.from({ length: 12 }, () => tokens.generate());

    expect(new Set(made.map((m) => m.token)).size).toBe(12);
    const again = new FakeSecretTokens();
    expect(made.map((m) => m.token)).toEqual(made.map(() => again.generate().token));
    for (const { token, hash } of made) {
      expect(encodeURIComponent(token)).toBe(token);
      expect(hash).toMatch(/^[0-9a-f]{64}$/);
      expect(hash).toBe(sha256Of(token));
      expect(tokens.hash(token)).toBe(hash);
    }
    expect(sha256Of('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(tokens.last).toEqual(made[11]);
    expect(tokens.hashCalls).toBe(12);
  });
});

describe('RecordingMailer', () => {
  const mail = { to: 'ada@example.com', name: 'Ada', link: 'https://x.test/a', expiresAt: new Date('2026-02-01T00:00:00.000Z') };

  it('records accepted mails in order, asynchronously', async () => {
    const mailer = new RecordingMailer();
    let settled = false;

    const sending = mailer.sendInvitation(mail).then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    await sending;
    await mailer.sendInvitation({ ...mail, to: 'grace@example.com' });

    expect(mailer.sent).toEqual([mail, { ...mail, to: 'grace@example.com' }]);
    expect(mailer.attempts).toBe(2);
  });

  it.each([
    ['temporary', false],
    ['permanent', true],
  ] as const)('fails exactly the next N sends with a %s MailDeliveryError, recording none as sent', async (kind, permanent) => {
    const mailer = new RecordingMailer();
    mailer.failNext(2, kind);

    for (let i = 0; i < 2; i += 1) {
      const error = await mailer.sendInvitation(mail).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MailDeliveryError);
      expect((error as MailDeliveryError).permanent).toBe(permanent);
    }
    await mailer.sendInvitation(mail);

    expect(mailer.sent).toEqual([mail]);
    expect(mailer.failed.map((f) => f.error.permanent)).toEqual([permanent, permanent]);
    expect(mailer.attempts).toBe(3);
  });
});
