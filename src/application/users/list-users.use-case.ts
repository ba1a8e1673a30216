import { Permissions } from '../../domain/permissions/permission';
import type { Role } from '../../domain/roles/role';
import { RoleNotFoundError } from '../../domain/roles/role-not-found.error';
import { ValidationError } from '../../domain/shared/domain-error';
import { comparisonKey } from '../../domain/users/comparison-key';
import { Email } from '../../domain/users/email';
import { type User, USER_STATUSES, type UserStatus } from '../../domain/users/user';
import { type Actor, requirePermission } from '../auth/actor';
import type { RoleRepository } from '../ports/role-repository.port';
import type { UserListFilter, UserRepository } from '../ports/user-repository.port';
import { type PageRequest, type Pagination, paginationOf, toSlice } from '../shared/pagination';
import { toUserView, type UserView } from './user.view';

/** The list's filters as the caller gives them; each one given narrows the list further. */
export interface UserListQuery {
  /** A role's name or `_id`. */
  role?: string;
  /** `pending`, `active` or `deactivated`. */
  status?: string;
  /** An e-mail address, compared case-insensitively and whatever the spelling of its accents (NFC). */
  email?: string;
  /** The start of a name, username or e-mail address, compared case-insensitively. */
  q?: string;
}

export interface ListUsersInput extends PageRequest {
  actor: Actor;
  filter?: UserListQuery;
}

export interface ListUsersResult {
  users: UserView[];
  pagination: Pagination;
}

export class ListUsersUseCase {
  private readonly users: UserRepository;
  private readonly roles: RoleRepository;

  constructor(deps: { userRepository: UserRepository; roleRepository: RoleRepository }) {
    this.users = deps.userRepository;
    this.roles = deps.roleRepository;
  }

  async execute({ actor, page, pageSize, filter = {} }: ListUsersInput): Promise<ListUsersResult> {
    requirePermission(actor, Permissions.usersRead);
    const values = parseValues(filter);
    // The roles are read anyway (each user is shown with its role): a role filter is resolved from them
    // first, by name or id as invite resolves one; without it both reads run at once.
    let roles: Role[];
    let listed: { items: User[]; total: number };
    if (filter.role !== undefined) {
      roles = await this.roles.findAll();
      const role = roles.find((r) => r.name === filter.role) ?? roles.find((r) => r.id === filter.role);
      if (!role) throw new RoleNotFoundError(filter.role);
      listed = await this.users.list(toSlice({ page, pageSize }), { ...values, roleId: role.id });
    } else {
      [listed, roles] = await Promise.all([this.users.list(toSlice({ page, pageSize }), values), this.roles.findAll()]);
    }
    const byId = new Map(roles.map((role) => [role.id, role]));
    return {
      users: listed.items.map((user) => toUserView(user, byId.get(user.roleId))),
      pagination: paginationOf({ page, pageSize }, listed.total),
    };
  }
}

/** The filters other than the role, checked and put in the form the stored keys have. */
function parseValues({ status, email, q }: UserListQuery): UserListFilter {
  const problems: { field: string; message: string }[] = [];
  const values: UserListFilter = {};
  if (status !== undefined) {
    if ((USER_STATUSES as readonly string[]).includes(status)) values.status = status as UserStatus;
    else problems.push({ field: 'status', message: `must be one of ${USER_STATUSES.join(', ')}` });
  }
  if (email !== undefined) {
    try {
      values.emailKey = Email.parse(email).normalized;
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      problems.push(...error.problems);
    }
  }
  if (q !== undefined) {
    // Keyed as every search key is (Email.normalize, Username.normalize, nameSearchKey: lower-cased and
    // composed, NFC); trimmed, as stored names are and e-mails and usernames hold no white space.
    const prefix = comparisonKey(q.trim());
    if (prefix === '') problems.push({ field: 'q', message: 'must not be blank' });
    else values.prefix = prefix;
  }
  if (problems.length > 0) throw new ValidationError(problems);
  return values;
}
