import { AuditActions } from '../../domain/audit/audit-entry';
import { Permissions } from '../../domain/permissions/permission';
import { requirePermission } from '../auth/actor';
import { type ServiceAccountActionInput, ServiceAccountChange } from './service-account-administration';

/** Deletes an account and its secrets, recording `ServiceAccountDeleted`; its credentials stop working at once. */
export class DeleteServiceAccountUseCase extends ServiceAccountChange {
  execute(input: ServiceAccountActionInput): Promise<void> {
    return this.refusable(input.actor, input.serviceAccountId, AuditActions.serviceAccountDeleted, () => this.remove(input));
  }

  private async remove({ actor, serviceAccountId, expectedVersion }: ServiceAccountActionInput): Promise<void> {
    requirePermission(actor, Permissions.serviceAccountsWrite);
    await this.unitOfWork.run(async (scope) => {
      const account = await this.target(scope, actor, serviceAccountId, expectedVersion);
      await this.audited(scope, actor, account.snapshot().state, AuditActions.serviceAccountDeleted);
      account.delete(this.changeBy(actor));
      await scope.serviceAccounts.delete(account);
      await scope.outbox.append(account.pullDomainEvents());
    });
  }
}
