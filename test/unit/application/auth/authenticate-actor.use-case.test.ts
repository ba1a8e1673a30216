import { AuthenticateActorUseCase } from '../../../../src/application/auth/authenticate-actor.use-case';
import { InMemoryRoleRepository } from '../../../support/fakes/in-memory-role.repository';
import { InMemoryUserRepository } from '../../../support/fakes/in-memory-user.repository';
import { SequentialIdGenerator } from '../../../support/fakes/sequential-id-generator';
import { RoleMother } from '../../../support/mothers/role.mother';
import { UserMother } from '../../../support/mothers/user.mother';

/** A token of the user's current version, as a freshly signed-in user presents. */
const as = (subject: string, tokenVersion = 0) => ({ subject, tokenVersion });

function setup() {
  const users = new InMemoryUserRepository();
  const roles = new InMemoryRoleRepository([RoleMother.admin(), RoleMother.member()]);
  const authenticate = new AuthenticateActorUseCase({ userRepository: users, roleRepository: roles });
  return { authenticate, users, roles };
}

describe('AuthenticateActorUseCase', () => {
  it('returns null for a subject that is no user', async () => {
    const { authenticate, users } = setup();
    users.seed(UserMother.joined());

    await expect(authenticate.execute(as(new SequentialIdGenerator(0xeeeeeeee).next()))).resolves.toBeNull();
  });

  it('returns null for a pending user', async () => {
    const { authenticate, users } = setup();
    const pending = UserMother.pending({ role: RoleMother.admin() });
    users.seed(pending);

    await expect(authenticate.execute(as(pending.id))).resolves.toBeNull();
  });

  it('gives a joined admin the permissions its role holds', async () => {
    const { authenticate, users } = setup();
    const admin = UserMother.joined({ role: RoleMother.admin() });
    users.seed(admin);

    const actor = await authenticate.execute(as(admin.id));

    expect(actor).not.toBeNull();
    expect(actor!.userId).toBe(admin.id);
    expect([...actor!.permissions].sort()).toEqual([...RoleMother.admin().permissions].sort());
  });

  it('gives a joined member no permissions', async () => {
    const { authenticate, users } = setup();
    const member = UserMother.joined({ role: RoleMother.member() });
    users.seed(member);

    await expect(authenticate.execute(as(member.id))).resolves.toEqual({ userId: member.id, permissions: [] });
  });

  it("reads the role's permissions as they are now, not as they were at sign-in", async () => {
    const { authenticate, users, roles } = setup();
    const auditor = RoleMother.withPermissions('auditor', ['users:read']);
    roles.save(auditor);
    const user = UserMother.joined({ role: auditor });
    users.seed(user);
    expect((await authenticate.execute(as(user.id)))!.permissions).toEqual(['users:read']);

    roles.save({ ...auditor, permissions: ['users:read', 'permissions:read'] });

    expect((await authenticate.execute(as(user.id)))!.permissions).toEqual(['users:read', 'permissions:read']);
  });

  it('gives a joined user whose role has gone no permissions at all', async () => {
    const { authenticate, users, roles } = setup();
    const admin = UserMother.joined({ role: RoleMother.admin() });
    users.seed(admin);
    roles.remove(RoleMother.admin().id);

    await expect(authenticate.execute(as(admin.id))).resolves.toEqual({ userId: admin.id, permissions: [] });
  });

  it('refuses a token of an older version once the user signed out, and accepts one of the new version', async () => {
    const { authenticate, users } = setup();
    const admin = UserMother.joined({ role: RoleMother.admin() });
    users.seed(admin);
    expect(await authenticate.execute(as(admin.id, 0))).not.toBeNull();

    await users.incrementTokenVersion(admin.id);

    await expect(authenticate.execute(as(admin.id, 0))).resolves.toBeNull();
    expect(await authenticate.execute(as(admin.id, 1))).not.toBeNull();
    await expect(authenticate.execute(as(admin.id, 2))).resolves.toBeNull();
  });
});
