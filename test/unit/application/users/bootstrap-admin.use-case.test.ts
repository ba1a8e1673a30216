import { auditRecorderFor } from '../../../support/fakes/audit-recorder';
import { BootstrapAdminUseCase } from '../../../../src/application/users/bootstrap-admin.use-case';
import { CreateAdminUseCase, type CreateAdminInput } from '../../../../src/application/users/create-admin.use-case';
import { FakePasswordHasher } from '../../../support/fakes/fake-password-hasher';
import { FixedClock } from '../../../support/fakes/fixed-clock';
import { InMemoryBootstrapRecord } from '../../../support/fakes/in-memory-bootstrap-record';
import { InMemoryOutbox } from '../../../support/fakes/in-memory-outbox';
import { InMemoryRoleRepository } from '../../../support/fakes/in-memory-role.repository';
import { InMemoryUnitOfWork } from '../../../support/fakes/in-memory-unit-of-work';
import { InMemoryUserRepository } from '../../../support/fakes/in-memory-user.repository';
import { SequentialIdGenerator } from '../../../support/fakes/sequential-id-generator';
import { RoleMother } from '../../../support/mothers/role.mother';
import { UserMother } from '../../../support/mothers/user.mother';

const input: CreateAdminInput = { username: 'root.admin', password: 'a long enough admin password', email: 'root@example.com' };
const STARTED = '2026-01-15T08:00:00.000Z';

function setup() {
  const clock = new FixedClock(STARTED);
  const users = new InMemoryUserRepository();
  const outbox = new InMemoryOutbox();
  const ids = new SequentialIdGenerator();
  const createAdmin = new CreateAdminUseCase({ auditRecorder: auditRecorderFor().auditRecorder,
    roleRepository: new InMemoryRoleRepository([RoleMother.admin(), RoleMother.member()]),
    unitOfWork: new InMemoryUnitOfWork({ users, outbox }),
    passwordHasher: new FakePasswordHasher(),
    clock,
    idGenerator: ids,
  });
  const record = new InMemoryBootstrapRecord(users);
  const bootstrap = new BootstrapAdminUseCase({ createAdmin, bootstrapRecord: record, clock });
  /** What a second admin's DELETE /v1/users/{id} does to the bootstrap admin: the row stays, the person is gone. */
  const erase = async (userId: string) => {
    const user = (await users.findById(userId))!;
    user.delete({ by: 'another-admin', now: clock.now(), newId: () => ids.next() });
    await users.erase(user);
  };
  return { bootstrap, users, record, erase, clock };
}

describe('BootstrapAdminUseCase', () => {
  it('creates the admin into an empty database and records when', async () => {
    const { bootstrap, users, record } = setup();

    const outcome = await bootstrap.execute(input);

    expect(outcome).toEqual({ created: true, userId: expect.any(String) });
    expect(users.count).toBe(1);
    expect((await record.recordedAt())?.toISOString()).toBe(STARTED);
  });

  it('never brings back an erased bootstrap admin: the next start finds the record and creates nothing', async () => {
    const { bootstrap, users, erase } = setup();
    const first = await bootstrap.execute(input);
    await erase((first as { userId: string }).userId);
    expect(users.count).toBe(0);

    const restarted = await bootstrap.execute(input);

    expect(restarted).toEqual({ created: false, reason: 'bootstrapped', at: new Date(STARTED) });
    expect(users.count).toBe(0);
    expect(await users.findByUsername(input.username)).toBeNull();
  });

  it('creates nothing into a database that has users but no record, says so, and records it', async () => {
    const { bootstrap, users, record } = setup();
    users.seed(UserMother.joined());

    const outcome = await bootstrap.execute(input);

    expect(outcome).toEqual({ created: false, reason: 'database-has-users' });
    expect(users.count).toBe(1);
    expect(await record.recordedAt()).not.toBeNull();
    expect(await bootstrap.execute(input)).toMatchObject({ created: false, reason: 'bootstrapped' });
  });

  it('counts an erased user as a user: a database whose only user was erased is not empty', async () => {
    const { bootstrap, users, erase } = setup();
    const lone = UserMother.joined();
    users.seed(lone);
    await erase(lone.id);
    expect(users.count).toBe(0);

    expect(await bootstrap.execute(input)).toEqual({ created: false, reason: 'database-has-users' });
    expect(users.count).toBe(0);
  });

  it('lets two replicas starting together create one admin, and both record the bootstrap', async () => {
    const { bootstrap, users, record } = setup();

    const outcomes = await Promise.all([bootstrap.execute(input), bootstrap.execute(input)]);

    expect(outcomes.map((o) => o.created).sort()).toEqual([false, true]);
    expect(users.count).toBe(1);
    expect(await record.recordedAt()).not.toBeNull();
  });
});
