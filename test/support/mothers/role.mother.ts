import { Permissions } from '../../../src/domain/permissions/permission';
import { type Role, RoleNames } from '../../../src/domain/roles/role';
import { SequentialIdGenerator } from '../fakes/sequential-id-generator';

const ids = new SequentialIdGenerator(0x0000000b);

export const ADMIN_ROLE_ID = '0000000b-0000-7000-8000-00000000a001';
export const MEMBER_ROLE_ID = '0000000b-0000-7000-8000-00000000a002';

export const RoleMother = {
  /** Holds every permission the service checks. */
  admin(): Role {
    return { id: ADMIN_ROLE_ID, name: RoleNames.admin, permissions: Object.values(Permissions) };
  },

  /** The default role of an invitee: none of the service's permissions. */
  member(): Role {
    return { id: MEMBER_ROLE_ID, name: RoleNames.member, permissions: [] };
  },

  withPermissions(name: string, permissions: readonly string[], id = ids.next()): Role {
    return { id, name, permissions: [...permissions] };
  },
};
