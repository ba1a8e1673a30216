import type { Permission } from '../../../../src/domain/permissions/permission';
import {
  CachedPermissionRepository,
  PERMISSION_CACHE_TTL_MS,
  type PermissionCatalogue,
} from '../../../../src/infrastructure/caching/cached-permission-repository';
import { PermissionMother } from '../../../support/mothers/permission.mother';

/** The permission table, counting how often it is read whole. */
class CountingCatalogue implements PermissionCatalogue {
  reads = 0;

  constructor(public permissions: Permission[]) {}

  async all(): Promise<Permission[]> {
    this.reads++;
    return this.permissions.map((p) => ({ ...p }));
  }
}

const everything = { offset: 0, limit: 100 };

function setup(ttlMs?: number) {
  const catalogue = new CountingCatalogue(PermissionMother.seeded());
  return { catalogue, permissions: new CachedPermissionRepository(catalogue, ttlMs) };
}

describe('CachedPermissionRepository', () => {
  // The cache's clock is performance.now(): fake timers move it without waiting.
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('reads the catalogue once within the TTL, whatever the filter, and again after it', async () => {
    const { catalogue, permissions } = setup();

    await permissions.list({}, everything);
    jest.advanceTimersByTime(PERMISSION_CACHE_TTL_MS - 1);
    await permissions.list({ group: 'users' }, everything);
    await permissions.list({ name: 'users:read' }, { offset: 1, limit: 1 });
    expect(catalogue.reads).toBe(1);

    const added = PermissionMother.create('roles:read');
    catalogue.permissions = [...catalogue.permissions, added];
    jest.advanceTimersByTime(2);
    await expect(permissions.list({ group: 'roles' }, everything)).resolves.toEqual({ items: [added], total: 1 });
    expect(catalogue.reads).toBe(2);
  });

  it('takes its TTL from the constructor', async () => {
    const { catalogue, permissions } = setup(60_000);
    await permissions.list({}, everything);
    jest.advanceTimersByTime(59_999);
    await permissions.list({}, everything);
    expect(catalogue.reads).toBe(1);
    jest.advanceTimersByTime(2);
    await permissions.list({}, everything);
    expect(catalogue.reads).toBe(2);
  });

  it('shares one read between concurrent callers', async () => {
    const { catalogue, permissions } = setup();
    await Promise.all([permissions.list({}, everything), permissions.list({ group: 'users' }, everything)]);
    expect(catalogue.reads).toBe(1);
  });

  it('filters by exact group and name, in the order the catalogue gave', async () => {
    const { permissions } = setup();
    const [read, invite, permissionsRead] = PermissionMother.seeded();

    await expect(permissions.list({}, everything)).resolves.toEqual({ items: [read, invite, permissionsRead], total: 3 });
    await expect(permissions.list({ group: 'users' }, everything)).resolves.toEqual({ items: [read, invite], total: 2 });
    await expect(permissions.list({ name: 'users:invite' }, everything)).resolves.toEqual({ items: [invite], total: 1 });
    await expect(permissions.list({ group: 'permissions', name: 'users:read' }, everything)).resolves.toEqual({ items: [], total: 0 });
    await expect(permissions.list({ group: 'user' }, everything)).resolves.toEqual({ items: [], total: 0 });
  });

  it('pages the matching permissions, counting all of them', async () => {
    const { permissions } = setup();
    const [read, invite, permissionsRead] = PermissionMother.seeded();

    await expect(permissions.list({}, { offset: 0, limit: 2 })).resolves.toEqual({ items: [read, invite], total: 3 });
    await expect(permissions.list({}, { offset: 2, limit: 2 })).resolves.toEqual({ items: [permissionsRead], total: 3 });
    await expect(permissions.list({ group: 'users' }, { offset: 1, limit: 5 })).resolves.toEqual({ items: [invite], total: 2 });
    await expect(permissions.list({}, { offset: 10, limit: 2 })).resolves.toEqual({ items: [], total: 3 });
  });

  it('does not cache a failed read', async () => {
    const { catalogue, permissions } = setup();
    jest.spyOn(catalogue, 'all').mockRejectedValueOnce(new Error('database away'));
    await expect(permissions.list({}, everything)).rejects.toThrow('database away');
    await expect(permissions.list({}, everything)).resolves.toMatchObject({ total: 3 });
  });
});
