import type { Role, RoleDetails } from '../../../../src/domain/roles/role';
import { CachedRoleRepository, type RoleCatalogue } from '../../../../src/infrastructure/caching/cached-role-repository';
import { RoleMother } from '../../../support/mothers/role.mother';

const details = (role: Role): RoleDetails => ({ ...role, builtIn: false, version: 1, createdAt: new Date(0) });

/** The roles table and its revision, counting how often the roles are read whole. */
class CountingCatalogue implements RoleCatalogue {
  reads = 0;
  revisionReads = 0;
  current = 1;
  roles: Role[];

  constructor(roles: Role[]) {
    this.roles = roles;
  }

  async revision(): Promise<number> {
    this.revisionReads++;
    return this.current;
  }

  async findAllDetails(): Promise<RoleDetails[]> {
    this.reads++;
    await new Promise((resolve) => setImmediate(resolve));
    return this.roles.map(details);
  }

  /** A committed role change: the roles and the revision move on together. */
  change(roles: Role[]): void {
    this.roles = roles;
    this.current++;
  }
}

function setup() {
  const catalogue = new CountingCatalogue([RoleMother.admin(), RoleMother.member()]);
  return { catalogue, roles: new CachedRoleRepository(catalogue) };
}

describe('CachedRoleRepository', () => {
  it('reads the roles once while the revision stays, checking the revision on every read', async () => {
    const { catalogue, roles } = setup();
    await expect(roles.findAll()).resolves.toHaveLength(2);
    await roles.findById(RoleMother.admin().id);
    await roles.findByName(RoleMother.member().name);
    expect(catalogue.reads).toBe(1);
    expect(catalogue.revisionReads).toBe(3);
  });

  it('shows a change on the very next read once the revision moved on (another replica’s change included)', async () => {
    const { catalogue, roles } = setup();
    await roles.findAll();
    const stripped = { ...RoleMother.admin(), permissions: ['users:read'] };
    catalogue.change([stripped, RoleMother.member()]);
    await expect(roles.findById(stripped.id)).resolves.toMatchObject({ permissions: ['users:read'] });
    expect(catalogue.reads).toBe(2);
    expect(roles.cachedRevision).toBe(2);
  });

  it('finds a role created since the last read at once', async () => {
    const { catalogue, roles } = setup();
    await roles.findAll();
    const auditor = RoleMother.withPermissions('auditor', ['users:read']);
    catalogue.change([...catalogue.roles, auditor]);
    await expect(roles.findByName('auditor')).resolves.toMatchObject({ id: auditor.id });
  });

  it('shares one load between concurrent reads at one revision', async () => {
    const { catalogue, roles } = setup();
    await Promise.all([roles.findAll(), roles.findById(RoleMother.admin().id), roles.findByName('member')]);
    expect(catalogue.reads).toBe(1);
  });

  it('does not keep an older load over a newer one', async () => {
    const { catalogue, roles } = setup();
    const first = roles.findAll();
    await new Promise((resolve) => setImmediate(resolve));
    catalogue.change([RoleMother.member()]);
    const second = roles.findAll();
    await Promise.all([first, second]);
    expect(roles.cachedRevision).toBe(2);
    await expect(roles.findAll()).resolves.toHaveLength(1);
  });

  it('answers null for an unknown id or name', async () => {
    const { roles } = setup();
    await expect(roles.findById('nope')).resolves.toBeNull();
    await expect(roles.findByName('Admin')).resolves.toBeNull();
  });

  it('does not cache a failed load', async () => {
    const { catalogue, roles } = setup();
    const original = catalogue.findAllDetails.bind(catalogue);
    catalogue.findAllDetails = async () => {
      throw new Error('database away');
    };
    await expect(roles.findAll()).rejects.toThrow('database away');
    catalogue.findAllDetails = original;
    await expect(roles.findAll()).resolves.toHaveLength(2);
  });
});

describe('CachedRoleRepository on a miss', () => {
  it('reads again at the same revision, so a role inserted directly into the tables is found', async () => {
    const { catalogue, roles } = setup();
    await roles.findAll();
    const direct = RoleMother.withPermissions('direct', []);
    catalogue.roles = [...catalogue.roles, direct]; // no revision moved
    await expect(roles.findById(direct.id)).resolves.toMatchObject({ name: 'direct' });
    await expect(roles.findAll()).resolves.toHaveLength(3);
  });
});
