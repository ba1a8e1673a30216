import { AuditActions } from '../../domain/audit/audit-entry';
import { Permissions } from '../../domain/permissions/permission';
import { ServiceAccount } from '../../domain/service-accounts/service-account';
import { type Actor, requirePermission } from '../auth/actor';
import { ServiceAccountChange } from './service-account-administration';
import type { ServiceAccountAnswer } from './service-account.view';

export interface CreateServiceAccountInput {
  actor: Actor;
  name: string;
  /** A role's name or `_id`. */
  role: string;
  description?: string;
}

/**
 * A new service account holding `role`, with one secret handed back this once (only its SHA-256 is
 * stored), recorded as `ServiceAccountCreated`. Nobody gives it a role holding a permission they lack.
 */
export class CreateServiceAccountUseCase extends ServiceAccountChange {
  execute(input: CreateServiceAccountInput): Promise<ServiceAccountAnswer & { clientSecret: string }> {
    return this.refusable(input.actor, null, AuditActions.serviceAccountCreated, () => this.create(input));
  }

  private async create({ actor, name, role, description }: CreateServiceAccountInput): Promise<ServiceAccountAnswer & { clientSecret: string }> {
    requirePermission(actor, Permissions.serviceAccountsWrite);
    const held = await this.roleToHandOut(actor, role);
    return this.unitOfWork.run(async (scope) => {
      const issued = this.issueSecret();
      const account = ServiceAccount.create({
        id: this.ids.next(),
        clientId: this.ids.next(),
        name,
        ...(description !== undefined ? { description } : {}),
        roleId: held.id,
        secret: issued.stored,
        ...this.changeBy(actor),
      });
      await scope.serviceAccounts.insert(account);
      const { state } = account.snapshot();
      await this.audited(scope, actor, state, AuditActions.serviceAccountCreated, [
        { field: 'name', before: null, after: state.name },
        { field: 'client_id', before: null, after: state.clientId },
        { field: 'role', before: null, after: held.name },
      ]);
      await scope.outbox.append(account.pullDomainEvents());
      return { ...(await this.answer(scope, account)), clientSecret: issued.secret };
    });
  }
}
