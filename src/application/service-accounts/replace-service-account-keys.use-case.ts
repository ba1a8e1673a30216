import { AuditActions } from '../../domain/audit/audit-entry';
import { Permissions } from '../../domain/permissions/permission';
import { parsePublicJwkSet } from '../../domain/service-accounts/public-jwk-set';
import { requirePermission } from '../auth/actor';
import { type ServiceAccountActionInput, ServiceAccountChange } from './service-account-administration';
import type { ServiceAccountAnswer } from './service-account.view';

/** Replaces the account's public keys (an inline JWK set, checked), recording `ServiceAccountKeysChanged`. */
export class ReplaceServiceAccountKeysUseCase extends ServiceAccountChange {
  execute(input: ServiceAccountActionInput & { keys: unknown }): Promise<ServiceAccountAnswer> {
    return this.refusable(input.actor, input.serviceAccountId, AuditActions.serviceAccountKeysReplaced, () => this.replace(input));
  }

  private async replace(input: ServiceAccountActionInput & { keys: unknown }): Promise<ServiceAccountAnswer> {
    requirePermission(input.actor, Permissions.serviceAccountsWrite);
    const keys = parsePublicJwkSet(input.keys);
    return this.unitOfWork.run(async (scope) => {
      const account = await this.target(scope, input.actor, input.serviceAccountId, input.expectedVersion);
      const before = account.snapshot().state.keys.length;
      if (account.replaceKeys(keys, this.changeBy(input.actor))) {
        await scope.serviceAccounts.update(account);
        const { state } = account.snapshot();
        await this.audited(scope, input.actor, state, AuditActions.serviceAccountKeysReplaced, [{ field: 'public_keys', before, after: state.keys.length }]);
        await scope.outbox.append(account.pullDomainEvents());
      }
      return this.answer(scope, account);
    });
  }
}
