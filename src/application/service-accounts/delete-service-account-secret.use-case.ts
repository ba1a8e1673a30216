import { AuditActions } from '../../domain/audit/audit-entry';
import { Permissions } from '../../domain/permissions/permission';
import { requirePermission } from '../auth/actor';
import { type ServiceAccountActionInput, ServiceAccountChange } from './service-account-administration';

/** Deletes one secret (it stops working at once), recording `ServiceAccountSecretRemoved`; never the last credential. */
export class DeleteServiceAccountSecretUseCase extends ServiceAccountChange {
  execute(input: ServiceAccountActionInput & { secretId: string }): Promise<void> {
    return this.refusable(input.actor, input.serviceAccountId, AuditActions.serviceAccountSecretDeleted, () => this.remove(input));
  }

  private async remove(input: ServiceAccountActionInput & { secretId: string }): Promise<void> {
    requirePermission(input.actor, Permissions.serviceAccountsWrite);
    await this.unitOfWork.run(async (scope) => {
      const account = await this.target(scope, input.actor, input.serviceAccountId, input.expectedVersion);
      account.removeSecret(input.secretId, this.changeBy(input.actor));
      await scope.serviceAccounts.update(account);
      await this.audited(scope, input.actor, account.snapshot().state, AuditActions.serviceAccountSecretDeleted, [{ field: 'credential_id', before: input.secretId, after: null }]);
      await scope.outbox.append(account.pullDomainEvents());
    });
  }
}
