import { AuditActions } from '../../domain/audit/audit-entry';
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
  execute(input: UserActionInput): Promise<UserDetails> {
    return this.refusable(input.actor, input.userId, AuditActions.userReactivated, () => this.change(input));
  }

  private async change({ actor, userId, expectedVersion }: UserActionInput): Promise<UserDetails> {
    requirePermission(actor, Permissions.usersDeactivate);
    return this.unitOfWork.run(async (scope) => {
      const { users, outbox } = scope;
      const { user, role } = await this.admin.target(scope, actor, userId, expectedVersion);
      if (user.reactivate(this.changeBy(actor))) {
        await users.update(user);
        await this.audited(scope, actor, user, AuditActions.userReactivated, [{ field: 'status', before: 'deactivated', after: user.status }]);
        await outbox.append(user.pullDomainEvents());
      }
      return toUserDetails(user, role);
    });
  }
}
