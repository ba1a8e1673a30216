import { AuthenticateActorUseCase, type TokenSubject } from '../../../../src/application/auth/authenticate-actor.use-case';
import type { Actor } from '../../../../src/application/auth/actor';
import type { ServiceAccountState } from '../../../../src/domain/service-accounts/service-account';
import { CachedActorResolver } from '../../../../src/infrastructure/caching/cached-actor-resolver';
import { InMemoryRoleRepository } from '../../../support/fakes/in-memory-role.repository';
import { InMemoryServiceAccountRepository } from '../../../support/fakes/in-memory-service-account.repository';
import { InMemoryUserRepository } from '../../../support/fakes/in-memory-user.repository';
import { RoleMother } from '../../../support/mothers/role.mother';
import { UserMother } from '../../../support/mothers/user.mother';

const READER = RoleMother.withPermissions('reader', ['users:read', 'roles:read']);
const INVITER = RoleMother.withPermissions('inviter', ['users:read', 'users:invite']);
const ACCOUNT_ID = '0000000c-0000-7000-8000-00000000c001';

function account(overrides: Partial<ServiceAccountState> = {}): ServiceAccountState {
  return {
    id: ACCOUNT_ID,
    clientId: 'reports-client',
    name: 'reports',
    roleId: READER.id,
    disabled: false,
    keys: [],
    secrets: [{ id: 's1', hash: 'a'.repeat(64), createdAt: new Date('2026-01-01T00:00:00Z') }],
    version: 1,
    createdAt: new Date('2026-01-01T00:00:00Z'),
    ...overrides,
  };
}

const serviceToken = (scope?: string[], clientId = 'reports-client', subject = ACCOUNT_ID): TokenSubject => ({
  kind: 'service',
  subject,
  clientId,
  ...(scope ? { scope } : {}),
});

function setup() {
  const users = new InMemoryUserRepository();
  const roles = new InMemoryRoleRepository([RoleMother.admin(), RoleMother.member(), READER, INVITER]);
  const serviceAccounts = new InMemoryServiceAccountRepository();
  serviceAccounts.save(account());
  const authenticate = new AuthenticateActorUseCase({ userRepository: users, roleRepository: roles, serviceAccountRepository: serviceAccounts });
  return { authenticate, users, roles, serviceAccounts };
}

describe('a service token resolved to its account (#21)', () => {
  it("gives an enabled account its role's permissions now, its id as the actor's and its client id", async () => {
    const { authenticate } = setup();
    await expect(authenticate.execute(serviceToken(['users:read', 'roles:read']))).resolves.toEqual({
      userId: ACCOUNT_ID,
      clientId: 'reports-client',
      permissions: ['users:read', 'roles:read'],
    });
  });

  it("narrows to the token's scope, and a permission the role lost since is gone whatever the scope says", async () => {
    const { authenticate, serviceAccounts } = setup();
    expect((await authenticate.execute(serviceToken(['roles:read'])))!.permissions).toEqual(['roles:read']);
    serviceAccounts.save(account({ roleId: INVITER.id }));
    expect((await authenticate.execute(serviceToken(['users:read', 'roles:read'])))!.permissions).toEqual(['users:read']);
  });

  it('refuses a disabled or deleted account, and a token whose client id is not the account’s', async () => {
    const { authenticate, serviceAccounts } = setup();
    await expect(authenticate.execute(serviceToken(undefined, 'another-client'))).resolves.toBeNull();
    serviceAccounts.save(account({ disabled: true }));
    await expect(authenticate.execute(serviceToken())).resolves.toBeNull();
    const other = new InMemoryServiceAccountRepository();
    const authenticateWithout = new AuthenticateActorUseCase({
      userRepository: new InMemoryUserRepository(),
      roleRepository: new InMemoryRoleRepository([READER]),
      serviceAccountRepository: other,
    });
    await expect(authenticateWithout.execute(serviceToken())).resolves.toBeNull();
  });

  it('refuses a token issued before the account was last disabled, once it is enabled again too; a later one works', async () => {
    const { authenticate, serviceAccounts } = setup();
    serviceAccounts.save(account({ tokensValidFrom: 1_800_000_001 }));
    await expect(authenticate.execute({ ...serviceToken(), issuedAt: 1_800_000_000 } as TokenSubject)).resolves.toBeNull();
    await expect(authenticate.execute({ ...serviceToken(), issuedAt: 1_800_000_001 } as TokenSubject)).resolves.toMatchObject({ userId: ACCOUNT_ID });
    // Never disabled: any issue time.
    serviceAccounts.save(account());
    await expect(authenticate.execute({ ...serviceToken(), issuedAt: 1 } as TokenSubject)).resolves.toMatchObject({ userId: ACCOUNT_ID });
  });

  it("never takes a user's token for a service account's, nor a service token for a user's", async () => {
    const { authenticate, users } = setup();
    const admin = UserMother.joined({ role: RoleMother.admin() });
    users.seed(admin);
    // A user token naming the account's id: looked up among users only.
    await expect(authenticate.execute({ subject: ACCOUNT_ID, tokenVersion: 0 })).resolves.toBeNull();
    // A service token naming a user's id: looked up among service accounts only.
    await expect(authenticate.execute(serviceToken(undefined, 'reports-client', admin.id))).resolves.toBeNull();
  });
});

describe('a service token through the actor cache (#21)', () => {
  function cached() {
    const context = setup();
    let revision = 1;
    const resolver = new CachedActorResolver(context.authenticate, { ttlMs: 60_000, rolesRevision: async () => revision });
    return { ...context, resolver, bumpRoles: () => (revision += 1) };
  }

  it('narrows each token to its own scope from one cached entry', async () => {
    const { resolver } = cached();
    expect((await resolver.execute(serviceToken(['roles:read'])))!.permissions).toEqual(['roles:read']);
    expect((await resolver.execute(serviceToken()))!.permissions).toEqual(['users:read', 'roles:read']);
  });

  it("drops the account's entry on its change notice, and follows a role's change at the next request", async () => {
    const { resolver, serviceAccounts, roles, bumpRoles } = cached();
    await resolver.execute(serviceToken());
    serviceAccounts.save(account({ disabled: true }));
    // Not yet noticed: the entry is kept for its TTL, as a user's.
    expect(await resolver.execute(serviceToken())).not.toBeNull();
    resolver.invalidate(ACCOUNT_ID);
    await expect(resolver.execute(serviceToken())).resolves.toBeNull();

    serviceAccounts.save(account());
    resolver.invalidate(ACCOUNT_ID);
    await resolver.execute(serviceToken());
    roles.save({ ...READER, permissions: ['roles:read'] });
    bumpRoles();
    expect((await resolver.execute(serviceToken()))!.permissions).toEqual(['roles:read']);
  });

  it("reads the account's version at each request: another replica's change applies at the next one, a deletion at once", async () => {
    const context = setup();
    const resolver = new CachedActorResolver(context.authenticate, {
      ttlMs: 60_000,
      serviceAccountVersion: async (id) => (await context.serviceAccounts.findById(id))?.version ?? null,
    });
    expect(await resolver.execute(serviceToken())).not.toBeNull();
    // Changed elsewhere (no notice here): its version moved on.
    context.serviceAccounts.save(account({ roleId: INVITER.id, version: 2 }));
    expect((await resolver.execute(serviceToken()))!.permissions).toEqual(['users:read', 'users:invite']);
    context.serviceAccounts.save(account({ disabled: true, version: 3 }));
    await expect(resolver.execute(serviceToken())).resolves.toBeNull();
    const gone = new CachedActorResolver(context.authenticate, { ttlMs: 60_000, serviceAccountVersion: async () => null });
    await expect(gone.execute(serviceToken())).resolves.toBeNull();
  });

  it('judges each token’s issue time against the cached account, whichever token loaded it', async () => {
    const context = setup();
    context.serviceAccounts.save(account({ tokensValidFrom: 1_800_000_001, version: 2 }));
    const resolver = new CachedActorResolver(context.authenticate, {
      ttlMs: 60_000,
      serviceAccountVersion: async (id) => (await context.serviceAccounts.findById(id))?.version ?? null,
    });
    // A token of after the disabling loads the entry; one of before is refused from it, and the other way round.
    expect(await resolver.execute({ ...serviceToken(), issuedAt: 1_800_000_005 } as TokenSubject)).not.toBeNull();
    await expect(resolver.execute({ ...serviceToken(), issuedAt: 1_800_000_000 } as TokenSubject)).resolves.toBeNull();
    const other = new CachedActorResolver(context.authenticate, { ttlMs: 60_000 });
    await expect(other.execute({ ...serviceToken(), issuedAt: 1_800_000_000 } as TokenSubject)).resolves.toBeNull();
    expect(await other.execute({ ...serviceToken(), issuedAt: 1_800_000_005 } as TokenSubject)).not.toBeNull();
  });

  it("keeps a user's entry and a service account's apart", async () => {
    const { resolver } = cached();
    const actor = (await resolver.execute(serviceToken())) as Actor;
    expect(actor.clientId).toBe('reports-client');
    await expect(resolver.execute({ subject: ACCOUNT_ID, tokenVersion: 0 })).resolves.toBeNull();
    await expect(resolver.execute(serviceToken(undefined, 'another-client'))).resolves.toBeNull();
  });
});
