import { AuditActions } from '../../domain/audit/audit-entry';
import { Permissions } from '../../domain/permissions/permission';
import { requirePermission } from '../auth/actor';
import { type ServiceAccountActionInput, ServiceAccountChange } from './service-account-administration';
import { type ServiceAccountSecretView, toSecretView } from './service-account.view';

export interface AddServiceAccountSecretInput extends ServiceAccountActionInput {
  /** Seconds until the secret stops working; none: until it is deleted. */
  expiresIn?: number;
}

/** Another secret for rotation with overlap (both work until the old one is deleted), returned this once. */
export class AddServiceAccountSecretUseCase extends ServiceAccountChange {
  execute(input: AddServiceAccountSecretInput): Promise<{ secret: ServiceAccountSecretView; clientSecret: string; version: number }> {
    return this.refusable(input.actor, input.serviceAccountId, AuditActions.serviceAccountSecretAdded, () => this.add(input));
  }

  private async add(input: AddServiceAccountSecretInput): Promise<{ secret: ServiceAccountSecretView; clientSecret: string; version: number }> {
    requirePermission(input.actor, Permissions.serviceAccountsWrite);
    return this.unitOfWork.run(async (scope) => {
      const account = await this.target(scope, input.actor, input.serviceAccountId, input.expectedVersion);
      const by = this.changeBy(input.actor);
      const issued = this.issueSecret(input.expiresIn === undefined ? undefined : new Date(by.now.getTime() + input.expiresIn * 1000));
      account.addSecret(issued.stored, by);
      await scope.serviceAccounts.update(account);
      await scope.outbox.append(account.pullDomainEvents());
      const { state } = account.snapshot();
      // The new credential's id only: never the secret nor its hash.
      await this.audited(scope, input.actor, state, AuditActions.serviceAccountSecretAdded, [{ field: 'credential_id', before: null, after: issued.stored.id }]);
      return { secret: toSecretView(state.secrets.find((s) => s.id === issued.stored.id)!), clientSecret: issued.secret, version: state.version };
    });
  }
}
