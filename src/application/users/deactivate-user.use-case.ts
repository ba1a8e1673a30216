import { AuditActions } from '../../domain/audit/audit-entry';
import { Permissions } from '../../domain/permissions/permission';
import { OwnAccountError } from '../../domain/users/user.errors';
import { requirePermission } from '../auth/actor';
import { UserChange, type UserActionInput } from './user-administration';
import { toUserDetails, type UserDetails } from './user.view';

/**
 * Locks a user out: it cannot sign in (the failure reads as a wrong password) or accept its invitation,
 * and every token it holds is refused from the next request on, on every replica (its token version is
 * bumped in the same transaction). Records `UserDeactivated`. Deactivating a deactivated user changes
 * nothing. Nobody deactivates themselves, nor the last active admin.
 */
export class DeactivateUserUseCase extends UserChange {
  execute(input: UserActionInput): Promise<UserDetails> {
    return this.refusable(input.actor, input.userId, AuditActions.userDeactivated, () => this.change(input));
  }

  private async change({ actor, userId, expectedVersion }: UserActionInput): Promise<UserDetails> {
    requirePermission(actor, Permissions.usersDeactivate);
    if (userId === actor.userId) throw new OwnAccountError('deactivate');
    return this.unitOfWork.run(async (scope) => {
      const { users, outbox } = scope;
      const { user, role } = await this.admin.target(scope, actor, userId, expectedVersion);
      await this.admin.assertAnotherActiveAdmin(scope, user);
      const before = user.status;
      if (user.deactivate(this.changeBy(actor))) {
        await users.update(user);
        await users.incrementTokenVersion(user.id);
        // A reset link mailed before ends too: it read as unknown while deactivated, and came back with a reactivation.
        await scope.passwordResets.deleteForUser(user.id);
        await this.audited(scope, actor, user, AuditActions.userDeactivated, [{ field: 'status', before, after: 'deactivated' }]);
        await outbox.append(user.pullDomainEvents());
      }
      return toUserDetails(user, role);
    });
  }
}
