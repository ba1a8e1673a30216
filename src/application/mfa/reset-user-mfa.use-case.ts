import { AuditActions } from '../../domain/audit/audit-entry';
import { MfaNotEnabledError, SecondFactorClosedError, type SecondFactorKind } from '../../domain/mfa/mfa';
import { userMfaRemoved } from '../../domain/mfa/mfa.events';
import { Permissions } from '../../domain/permissions/permission';
import { type LockoutPolicy, secondFactorClosed } from '../../domain/users/lockout-policy';
import { OwnAccountError } from '../../domain/users/user.errors';
import { Username } from '../../domain/users/username';
import { requirePermission } from '../auth/actor';
import { UserChange, type UserChangeDeps, type UserActionInput } from '../users/user-administration';

/**
 * An admin with `users:update` removes another user's second factors and recovery codes (a lost phone), under
 * the hand-out rule of every user change. Every token the user holds ends (token version bumped in the same
 * transaction): whoever held the session signs in again, with the password alone until a factor is enrolled.
 */
export class ResetUserMfaUseCase extends UserChange {
  private readonly lockoutPolicy: LockoutPolicy;

  constructor(deps: UserChangeDeps & { lockoutPolicy: LockoutPolicy }) {
    super(deps);
    this.lockoutPolicy = deps.lockoutPolicy;
  }

  execute(input: UserActionInput): Promise<void> {
    return this.refusable(input.actor, input.userId, AuditActions.mfaRemoved, () => this.change(input));
  }

  private async change({ actor, userId }: UserActionInput): Promise<void> {
    requirePermission(actor, Permissions.usersUpdate);
    // One's own factor is removed with one's password (DELETE /v1/me/mfa/totp), not by this route.
    if (userId === actor.userId) throw new OwnAccountError('reset the second factor of');
    await this.unitOfWork.run(async (scope) => {
      const { user } = await this.admin.target(scope, actor, userId);
      // A closed second step means someone has the password: a reset now would let them in with it alone (review O).
      const { factorFailures } = await scope.mfa.ticketHolder(user.id, Username.normalize(user.username ?? ''));
      if (secondFactorClosed(this.lockoutPolicy, factorFailures)) throw new SecondFactorClosedError();
      const types: SecondFactorKind[] = [...new Set((await scope.mfa.factorsOf(user.id)).map((f) => f.type))];
      if ((await scope.mfa.passkeysOf(user.id)).length > 0) types.push('webauthn');
      if ((await scope.mfa.removeFactors(user.id)) === 0) throw new MfaNotEnabledError();
      await scope.users.incrementTokenVersion(user.id);
      const { by, now, newId } = this.changeBy(actor);
      await scope.outbox.append([userMfaRemoved(newId(), user.id, { types, remaining: [] }, by, now)]);
      // The trail says which kinds went (and the recovery codes with them), as the event does.
      await this.audited(scope, actor, user, AuditActions.mfaRemoved, [{ field: 'second_factors', before: types, after: [] }]);
    });
  }
}
