import { Permissions } from '../../domain/permissions/permission';
import { requirePermission } from '../auth/actor';
import { UserChange, type UserActionInput } from './user-administration';
import { toUserDetails, type UserDetails } from './user.view';

/**
 * Gives a deactivated user its access back: active with the same password once joined, pending (its
 * invitation usable again) otherwise. Tokens ended by the deactivation stay ended. Records
 * `UserReactivated`; reactivating a user that is not deactivated changes nothing.
 */
export class ReactivateUserUseCase extends UserChange {
  async execute({ actor, userId, expectedVersion }: UserActionInput): Promise<UserDetails> {
    requirePermission(actor, Permissions.usersDeactivate);
    return this.unitOfWork.run(async (scope) => {
      const { users, outbox } = scope;
      const { user, role } = await this.admin.target(scope, actor, userId, expectedVersion);
      if (user.reactivate(this.changeBy(actor))) {
        await users.update(user);
        await outbox.append(user.pullDomainEvents());
      }
      return toUserDetails(user, role);
    });
  }
}
