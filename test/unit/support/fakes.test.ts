import { EmailAlreadyTakenError, UsernameAlreadyTakenError } from '../../../src/domain/users/user.errors';
import { Email } from '../../../src/domain/users/email';
import { User } from '../../../src/domain/users/user';
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

    const a = await tokens.issue('user-1');
    const b = await tokens.issue('user-1');

    expect(a.token).not.toBe(b.token);
    expect(a.expiresAt.toISOString()).toBe('2026-01-01T00:01:00.000Z');
    expect(tokens.issued.map((t) => t.subject)).toEqual(['user-1', 'user-1']);
  });
});
