import { AuditActions, changedFields } from '../../domain/audit/audit-entry';
import { Permissions } from '../../domain/permissions/permission';
import { requirePermission } from '../auth/actor';
import { type ServiceAccountActionInput, ServiceAccountChange } from './service-account-administration';
import type { ServiceAccountAnswer } from './service-account.view';

export interface UpdateServiceAccountInput extends ServiceAccountActionInput {
  name?: string;
  /** `null` removes the description. */
  description?: string | null;
  /** A role's name or `_id`: the caller needs every permission of the account's role now and of this one. */
  role?: string;
  disabled?: boolean;
}

/** Changes an account's name, description, role or disabled flag, recording `ServiceAccountChanged`. */
export class UpdateServiceAccountUseCase extends ServiceAccountChange {
  execute(input: UpdateServiceAccountInput): Promise<ServiceAccountAnswer> {
    return this.refusable(input.actor, input.serviceAccountId, AuditActions.serviceAccountUpdated, () => this.change(input));
  }

  private async change(input: UpdateServiceAccountInput): Promise<ServiceAccountAnswer> {
    const { actor } = input;
    requirePermission(actor, Permissions.serviceAccountsWrite);
    const role = input.role === undefined ? undefined : await this.roleToHandOut(actor, input.role);
    return this.unitOfWork.run(async (scope) => {
      const account = await this.target(scope, actor, input.serviceAccountId, input.expectedVersion);
      const before = account.snapshot().state;
      const changed = account.change({
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(role ? { roleId: role.id } : {}),
        ...(input.disabled !== undefined ? { disabled: input.disabled } : {}),
        ...this.changeBy(actor),
      });
      if (changed) {
        await scope.serviceAccounts.update(account);
        const after = account.snapshot().state;
        const roleName = async (id: string) => (await scope.roles.findById(id))?.name ?? id;
        const fields = (s: typeof before, role: string) => ({ name: s.name, description: s.description ?? null, role, disabled: s.disabled });
        const changes = changedFields(fields(before, await roleName(before.roleId)), fields(after, await roleName(after.roleId)));
        await this.audited(scope, input.actor, before, AuditActions.serviceAccountUpdated, changes);
        await scope.outbox.append(account.pullDomainEvents());
      }
      return this.answer(scope, account);
    });
  }
}
