import type { Actor } from '../../../src/application/auth/actor';
import { Permissions } from '../../../src/domain/permissions/permission';
import { SequentialIdGenerator } from '../fakes/sequential-id-generator';

const ids = new SequentialIdGenerator(0x0000000d);

export const ActorMother = {
  withPermissions(permissions: readonly string[], userId = ids.next()): Actor {
    return { userId, permissions: [...permissions] };
  },

  /** An authenticated user whose role holds none of the service's permissions (a member). */
  withoutPermissions(userId = ids.next()): Actor {
    return { userId, permissions: [] };
  },

  admin(userId = ids.next()): Actor {
    return { userId, permissions: Object.values(Permissions) };
  },
};
