import { EmailAlreadyTakenError, UserChangedConcurrentlyError, UserNotFoundError, UsernameAlreadyTakenError } from '../../../src/domain/users/user.errors';
import { Username } from '../../../src/domain/users/username';
import { InMemoryInvitationRepository } from '../../support/fakes/in-memory-invitation.repository';
import { InMemoryProcessedEventStore } from '../../support/fakes/in-memory-processed-event.store';
import { InvitationMother } from '../../support/mothers/invitation.mother';
import { InMemoryOutbox } from '../../support/fakes/in-memory-outbox';
import { InMemoryUserRepository } from '../../support/fakes/in-memory-user.repository';
import { SequentialIdGenerator } from '../../support/fakes/sequential-id-generator';
import { UserMother } from '../../support/mothers/user.mother';
import { changed, invited } from './fake-fixtures';

// The use-case tests are only as good as these fakes: they must keep the ports' real contracts (the persistence
// fakes are also held to them by test/contract, case for case with the TypeORM adapters).

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

  it('deletes a pending user, frees the e-mail, and refuses an unknown or joined one', async () => {
    const pending = UserMother.pending({ email: 'gone@example.com' });
    const kept = UserMother.joined();
    const users = new InMemoryUserRepository([pending, kept]);

    await users.delete(pending);
    await expect(users.delete(UserMother.pending())).rejects.toBeInstanceOf(UserNotFoundError);
    await expect(users.delete(kept)).rejects.toBeInstanceOf(UserChangedConcurrentlyError);

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
      users.delete(UserMother.pending()).catch(() => undefined).then(() => (settled += 1)),
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

    await invitations.markUsed(mine.invitation, at);
    await invitations.markUsed({ userId: 'user-3', tokenHash: mine.invitation.tokenHash }, at);

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
