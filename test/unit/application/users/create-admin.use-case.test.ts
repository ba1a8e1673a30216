import { auditRecorderFor } from '../../../support/fakes/audit-recorder';
import { CreateAdminUseCase, type CreateAdminInput } from '../../../../src/application/users/create-admin.use-case';
import { RoleNotFoundError } from '../../../../src/domain/roles/role-not-found.error';
import { ValidationError } from '../../../../src/domain/shared/domain-error';
import { FakePasswordHasher, fakeHashOf } from '../../../support/fakes/fake-password-hasher';
import { FixedClock } from '../../../support/fakes/fixed-clock';
import { InMemoryOutbox } from '../../../support/fakes/in-memory-outbox';
import { InMemoryRoleRepository } from '../../../support/fakes/in-memory-role.repository';
import { InMemoryUnitOfWork } from '../../../support/fakes/in-memory-unit-of-work';
import { InMemoryUserRepository } from '../../../support/fakes/in-memory-user.repository';
import { SequentialIdGenerator } from '../../../support/fakes/sequential-id-generator';
import { RoleMother } from '../../../support/mothers/role.mother';
import { UserMother } from '../../../support/mothers/user.mother';

const input: CreateAdminInput = {
  username: 'root.admin',
  password: 'a long enough admin password',
  email: 'Root@Example.com',
  name: 'Root Admin',
};

function setup({ roles = [RoleMother.admin(), RoleMother.member()] } = {}) {
  const clock = new FixedClock('2026-01-15T08:00:00.000Z');
  const users = new InMemoryUserRepository();
  const outbox = new InMemoryOutbox();
  const hasher = new FakePasswordHasher();
  const createAdmin = new CreateAdminUseCase({ auditRecorder: auditRecorderFor().auditRecorder,
    roleRepository: new InMemoryRoleRepository(roles),
    unitOfWork: new InMemoryUnitOfWork({ users, outbox }),
    passwordHasher: hasher,
    clock,
    idGenerator: new SequentialIdGenerator(),
  });
  return { createAdmin, users, outbox, hasher, clock };
}

describe('CreateAdminUseCase', () => {
  it('creates a joined admin whose password is stored hashed, joined at the time of the clock', async () => {
    const { createAdmin, users, hasher } = setup();

    const outcome = await createAdmin.execute(input);

    expect(outcome).toEqual({ created: true, userId: expect.any(String) });
    const userId = (outcome as { userId: string }).userId;
    const admin = (await users.findById(userId))!;
    expect(users.count).toBe(1);
    expect(admin.isJoined).toBe(true);
    expect(admin.username).toBe('root.admin');
    expect(admin.email).toBe('Root@Example.com');
    expect(admin.name).toBe('Root Admin');
    expect(admin.roleId).toBe(RoleMother.admin().id);
    expect(admin.joinedAt!.toISOString()).toBe('2026-01-15T08:00:00.000Z');
    expect(admin.invitedAt.toISOString()).toBe('2026-01-15T08:00:00.000Z');
    expect(admin.passwordHash).toBe(fakeHashOf(input.password));
    expect(admin.passwordHash).not.toContain(input.password);
    expect(hasher.hashed).toEqual([input.password]);
    await expect(hasher.verify(input.password, admin.passwordHash)).resolves.toBe(true);
  });

  it('records UserJoined with the whole admin and no secret, so a consumer of the events knows this user too', async () => {
    const { createAdmin, outbox } = setup();

    const outcome = await createAdmin.execute(input);

    const userId = (outcome as { userId: string }).userId;
    expect(outbox.events.map((e) => [e.type, e.aggregateId, e.data])).toEqual([
      [
        'UserJoined',
        userId,
        {
          user_id: userId,
          email: 'Root@Example.com',
          username: 'root.admin',
          name: 'Root Admin',
          role: { _id: RoleMother.admin().id, name: 'admin' },
          joined_date: '2026-01-15T08:00:00.000Z',
        },
      ],
    ]);
    expect(JSON.stringify(outbox.events)).not.toContain(input.password);
    expect(JSON.stringify(outbox.events)).not.toContain(fakeHashOf(input.password));
  });

  it('names the admin after its username when no name is given', async () => {
    const { createAdmin, users } = setup();

    await createAdmin.execute({ ...input, name: undefined });

    expect(users.all()[0].name).toBe('root.admin');
  });

  it.each([
    ['the same username in another case', () => UserMother.joined({ username: 'ROOT.Admin', email: 'someone@example.com' })],
    ['the same e-mail in another case', () => UserMother.joined({ username: 'someone', email: 'root@EXAMPLE.com' })],
    ['a pending invitee with the e-mail', () => UserMother.pending({ email: 'ROOT@example.com' })],
  ])('leaves everything as it is when a user with %s exists', async (_label, existingUser) => {
    const { createAdmin, users, outbox } = setup();
    const existing = existingUser();
    users.seed(existing);

    const outcome = await createAdmin.execute(input);

    expect(outcome).toEqual({ created: false, reason: 'exists' });
    expect(users.count).toBe(1);
    expect(users.all()[0].toSnapshot()).toEqual(existing.toSnapshot());
    expect(outbox.events).toEqual([]);
  });

  it('leaves everything as it is when a user has the e-mail spelled with a decomposed accent (#22)', async () => {
    const { createAdmin, users, outbox } = setup();
    users.seed(UserMother.pending({ email: 'jose\u0301@example.com' }));

    const outcome = await createAdmin.execute({ ...input, email: 'Jos\u00e9@Example.com' });

    expect(outcome).toEqual({ created: false, reason: 'exists' });
    expect(users.count).toBe(1);
    expect(outbox.events).toEqual([]);
  });

  it('is idempotent: a second start with the same variables creates nothing', async () => {
    const { createAdmin, users } = setup();

    const first = await createAdmin.execute(input);
    const second = await createAdmin.execute({ ...input, password: 'another long password' });

    expect(first.created).toBe(true);
    expect(second).toEqual({ created: false, reason: 'exists' });
    expect(users.count).toBe(1);
    expect(users.all()[0].passwordHash).toBe(fakeHashOf(input.password));
  });

  it('tolerates two replicas bootstrapping the same admin at once: one creates it, the other finds it exists', async () => {
    const { createAdmin, users } = setup();

    const outcomes = await Promise.allSettled([createAdmin.execute(input), createAdmin.execute(input)]);

    // A replica whose insert loses the race on the unique index must not fail its start-up.
    const failures = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason] : []));
    expect(failures).toEqual([]);
    const created = outcomes.map((o) => (o.status === 'fulfilled' ? o.value.created : undefined));
    expect(created.sort()).toEqual([false, true]);
    expect(users.count).toBe(1);
  });

  it.each<[string, Partial<CreateAdminInput>]>([
    ['ADMIN_USERNAME', { username: 'no spaces allowed' }],
    ['ADMIN_USERNAME', { username: 'ab' }],
    ['ADMIN_EMAIL', { email: 'not-an-email' }],
    ['ADMIN_EMAIL', { email: 'root\u200b@example.com' }],
    ['ADMIN_PASSWORD', { password: 'short' }],
    ['ADMIN_PASSWORD', { password: 'x'.repeat(129) }],
    ['ADMIN_PASSWORD', { password: 'ROOT@example.com' }],
    ['ADMIN_PASSWORD', { username: 'the-root-admin', password: 'The-Root-Admin' }],
    ['ADMIN_NAME', { name: '   ' }],
  ])('refuses a bad %s with a ValidationError naming that variable, and writes nothing', async (field, bad) => {
    const { createAdmin, users, hasher } = setup();

    const error = await createAdmin.execute({ ...input, ...bad }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).problems.map((p) => p.field)).toEqual([field]);
    expect(users.count).toBe(0);
    expect(hasher.hashCalls).toBe(0);
  });

  it('fails with RoleNotFoundError when the admin role has not been seeded', async () => {
    const { createAdmin, users } = setup({ roles: [RoleMother.member()] });

    await expect(createAdmin.execute(input)).rejects.toBeInstanceOf(RoleNotFoundError);
    expect(users.count).toBe(0);
  });
});
