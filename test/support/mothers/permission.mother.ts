import { type Permission, Permissions } from '../../../src/domain/permissions/permission';
import { SequentialIdGenerator } from '../fakes/sequential-id-generator';

const ids = new SequentialIdGenerator(0x0000000a);

const SEEDED: readonly Permission[] = [
  { id: '0000000a-0000-7000-8000-00000000f001', group: 'users', name: Permissions.usersRead },
  { id: '0000000a-0000-7000-8000-00000000f002', group: 'users', name: Permissions.usersInvite },
  { id: '0000000a-0000-7000-8000-00000000f003', group: 'permissions', name: Permissions.permissionsRead },
];

export const PermissionMother = {
  /** The permissions the migration seeds. */
  seeded(): Permission[] {
    return SEEDED.map((p) => ({ ...p }));
  },

  /** Any other permission; its group is the part of the name before `:` unless given. */
  create(name: string, group = name.split(':')[0], id = ids.next()): Permission {
    return { id, group, name };
  },
};
