import type { RoleRepository } from '../../../../src/application/ports/role-repository.port';
import type { Role } from '../../../../src/domain/roles/role';
import { CachedRoleRepository, ROLE_CACHE_TTL_MS } from '../../../../src/infrastructure/caching/cached-role-repository';
import { RoleMother } from '../../../support/mothers/role.mother';

/** The roles table, counting how often it is read whole; the cache must never ask it for one role. */
class CountingRoles implements RoleRepository {
  reads = 0;

  constructor(public roles: Role[]) {}

  async findAll(): Promise<Role[]> {
    this.reads++;
    return this.roles.map((role) => ({ ...role, permissions: [...role.permissions] }));
  }

  findById(): Promise<Role | null> {
    throw new Error('the cache answers findById from findAll');
  }

  findByName(): Promise<Role | null> {
    throw new Error('the cache answers findByName from findAll');
  }
}

function setup(ttlMs?: number) {
  const inner = new CountingRoles([RoleMother.admin(), RoleMother.member()]);
  return { inner, roles: new CachedRoleRepository(inner, ttlMs) };
}

describe('CachedRoleRepository', () => {
  // The cache's clock is performance.now(): fake timers move it without waiting.
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('reads the roles once within the TTL, and again after it', async () => {
    const { inner, roles } = setup();

    await expect(roles.findAll()).resolves.toHaveLength(2);
    jest.advanceTimersByTime(ROLE_CACHE_TTL_MS - 1);
    await roles.findAll();
    await roles.findById(RoleMother.admin().id);
    await roles.findByName(RoleMother.member().name);
    expect(inner.reads).toBe(1);

    inner.roles = [RoleMother.member()];
    jest.advanceTimersByTime(2);
    await expect(roles.findAll()).resolves.toEqual([RoleMother.member()]);
    expect(inner.reads).toBe(2);
  });

  it('takes its TTL from the constructor', async () => {
    const { inner, roles } = setup(10_000);
    await roles.findAll();
    jest.advanceTimersByTime(ROLE_CACHE_TTL_MS + 1);
    await roles.findAll();
    expect(inner.reads).toBe(1);
    jest.advanceTimersByTime(10_000);
    await roles.findAll();
    expect(inner.reads).toBe(2);
  });

  it('shares one read between concurrent callers', async () => {
    const { inner, roles } = setup();
    await Promise.all([roles.findAll(), roles.findById(RoleMother.admin().id), roles.findByName('member')]);
    expect(inner.reads).toBe(1);
  });

  it('finds a role by id or name from the cached roles', async () => {
    const { roles } = setup();
    await expect(roles.findById(RoleMother.admin().id)).resolves.toEqual(RoleMother.admin());
    await expect(roles.findByName('member')).resolves.toEqual(RoleMother.member());
  });

  it('reads again on a miss, so a role created since the last read is found at once', async () => {
    const { inner, roles } = setup();
    await roles.findAll();
    const auditor = RoleMother.withPermissions('auditor', ['users:read']);
    inner.roles = [...inner.roles, auditor];

    await expect(roles.findByName('auditor')).resolves.toEqual(auditor);
    await expect(roles.findById(auditor.id)).resolves.toEqual(auditor);
    expect(inner.reads).toBe(2);
  });

  it('answers null for a role that is not there after reading again', async () => {
    const { inner, roles } = setup();
    await roles.findAll();
    await expect(roles.findByName('nobody')).resolves.toBeNull();
    await expect(roles.findById('no-such-id')).resolves.toBeNull();
    expect(inner.reads).toBe(3);
  });

  it('drops the cached roles on invalidate()', async () => {
    const { inner, roles } = setup();
    await roles.findAll();
    inner.roles = [RoleMother.withPermissions('admin', [], RoleMother.admin().id)];
    roles.invalidate();

    await expect(roles.findById(RoleMother.admin().id)).resolves.toMatchObject({ permissions: [] });
    expect(inner.reads).toBe(2);
  });

  it('does not cache a failed read', async () => {
    const { inner, roles } = setup();
    const findAll = jest.spyOn(inner, 'findAll').mockRejectedValueOnce(new Error('database away'));
    await expect(roles.findAll()).rejects.toThrow('database away');
    await expect(roles.findAll()).resolves.toHaveLength(2);
    expect(findAll).toHaveBeenCalledTimes(2);
  });
});
