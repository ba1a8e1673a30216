import { AuditActions } from '../../domain/audit/audit-entry';
import { Permissions } from '../../domain/permissions/permission';
import { OwnAccountError } from '../../domain/users/user.errors';
import { requirePermission } from '../auth/actor';
import { UserChange, type UserActionInput } from './user-administration';

/**
 * Removes a person: name, e-mail, username and password hash are erased (the e-mail and the username
 * are free again), its second factors deleted, the pending invitation dies, every token is refused at once, and `UserDeleted`
 * (the id only) is recorded, in one transaction. The id stays, so other users' `invited_by` still
 * holds. Nobody deletes themselves, nor the last active admin.
 */
export class DeleteUserUseCase extends UserChange {
  execute(input: UserActionInput): Promise<void> {
    return this.refusable(input.actor, input.userId, AuditActions.userDeleted, () => this.change(input));
  }

  private async change({ actor, userId, expectedVersion }: UserActionInput): Promise<void> {
    requirePermission(actor, Permissions.usersDelete);
    if (userId === actor.userId) throw new OwnAccountError('delete');
    await this.unitOfWork.run(async (scope) => {
      const { users, outbox } = scope;
      const { user } = await this.admin.target(scope, actor, userId, expectedVersion);
      await this.admin.assertAnotherActiveAdmin(scope, user);
      // The name it had, before the erasure takes it.
      await this.audited(scope, actor, user, AuditActions.userDeleted, [{ field: 'status', before: user.status, after: 'deleted' }]);
      user.delete(this.changeBy(actor));
      // Its second factors are the person's too: the app's secret, the passkeys (a name it chose, a credential id, a
      // key) and the recovery codes go with the rest (review O).
      await scope.mfa.removeFactors(user.id);
      // Erasing bumps the token version and deletes the invitation with the personal data.
      await users.erase(user);
      await outbox.append(user.pullDomainEvents());
    });
  }
}
