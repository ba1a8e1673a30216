import { Permissions } from '../../domain/permissions/permission';
import { NoSuchServiceAccountError } from '../../domain/service-accounts/service-account.errors';
import { type Actor, requirePermission } from '../auth/actor';
import type { RoleRepository } from '../ports/role-repository.port';
import type { ServiceAccountRepository } from '../ports/service-account-repository.port';
import { type PageRequest, type Pagination, paginationOf, toSlice } from '../shared/pagination';
import {
  type ServiceAccountAnswer,
  type ServiceAccountSecretView,
  type ServiceAccountView,
  toSecretView,
  toServiceAccountView,
} from './service-account.view';

interface ReadDeps {
  serviceAccountRepository: ServiceAccountRepository;
  roleRepository: RoleRepository;
}

/** Service accounts by creation, page by page (as the other lists page). */
export class ListServiceAccountsUseCase {
  constructor(private readonly deps: ReadDeps) {}

  async execute({ actor, page, pageSize }: PageRequest & { actor: Actor }): Promise<{ service_accounts: ServiceAccountView[]; pagination: Pagination }> {
    requirePermission(actor, Permissions.serviceAccountsRead);
    const [{ items, total }, roles] = await Promise.all([
      this.deps.serviceAccountRepository.list(toSlice({ page, pageSize })),
      this.deps.roleRepository.findAll(),
    ]);
    const byId = new Map(roles.map((r) => [r.id, r]));
    return { service_accounts: items.map((a) => toServiceAccountView(a, byId.get(a.roleId))), pagination: paginationOf({ page, pageSize }, total) };
  }
}

/** One service account, with the version a change may name. */
export class GetServiceAccountUseCase {
  constructor(private readonly deps: ReadDeps) {}

  async execute({ actor, serviceAccountId }: { actor: Actor; serviceAccountId: string }): Promise<ServiceAccountAnswer> {
    requirePermission(actor, Permissions.serviceAccountsRead);
    const state = await this.deps.serviceAccountRepository.findById(serviceAccountId);
    if (!state) throw new NoSuchServiceAccountError();
    return { serviceAccount: toServiceAccountView(state, await this.deps.roleRepository.findById(state.roleId)), version: state.version };
  }
}

/** An account's secrets: ids, dates, last use; never a secret nor its hash. */
export class ListServiceAccountSecretsUseCase {
  constructor(private readonly deps: Pick<ReadDeps, 'serviceAccountRepository'>) {}

  async execute({ actor, serviceAccountId }: { actor: Actor; serviceAccountId: string }): Promise<{ secrets: ServiceAccountSecretView[] }> {
    requirePermission(actor, Permissions.serviceAccountsRead);
    const state = await this.deps.serviceAccountRepository.findById(serviceAccountId);
    if (!state) throw new NoSuchServiceAccountError();
    return { secrets: state.secrets.map(toSecretView) };
  }
}
