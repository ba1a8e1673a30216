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
  /**
   * The cursor form, for a walk of every user: the page of `pageSize` users after this user id (any id shaped as
   * one: a cursor whose user was erased meanwhile walks on), instead of page `page`.
   */
  after?: string;
}

export interface ListUsersResult {
  users: UserView[];
  /** In the cursor form, `page` is the page of `page_size` the first user after the cursor falls on. */
  pagination: Pagination;
  /** The cursor of the next page: the last user's id, when users follow it (by the counts of this answer). */
  nextAfter?: string;
}

/** A user id as the list's cursor takes it: a UUID, in either case. */
const CURSOR = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export class ListUsersUseCase {
  private readonly users: UserRepository;
  private readonly roles: RoleRepository;

  constructor(deps: { userRepository: UserRepository; roleRepository: RoleRepository }) {
    this.users = deps.userRepository;
    this.roles = deps.roleRepository;
  }

  async execute({ actor, page, pageSize, filter = {}, after }: ListUsersInput): Promise<ListUsersResult> {
    requirePermission(actor, Permissions.usersRead);
    const values = parseValues(filter);
    if (after !== undefined && !CURSOR.test(after)) throw new ValidationError([{ field: 'after', message: 'must be a user id (a UUID)' }]);
    const slice = toSlice({ page, pageSize });
    const list = async (narrowed: UserListFilter): Promise<Listed> =>
      after === undefined
        ? { ...(await this.users.list(slice, narrowed)), before: slice.offset }
        : this.users.listAfter({ after: after.toLowerCase(), limit: pageSize }, narrowed);
    // The roles are read anyway (each user is shown with its role): a role filter is resolved from them
    // first, by name or id as invite resolves one; without it both reads run at once.
    let roles: Role[];
    let listed: Listed;
    if (filter.role !== undefined) {
      roles = await this.roles.findAll();
      const role = roles.find((r) => r.name === filter.role) ?? roles.find((r) => r.id === filter.role);
      if (!role) throw new RoleNotFoundError(filter.role);
      listed = await list({ ...values, roleId: role.id });
    } else {
      [listed, roles] = await Promise.all([list(values), this.roles.findAll()]);
    }
    const byId = new Map(roles.map((role) => [role.id, role]));
    const last = listed.items.at(-1);
    const more = last !== undefined && listed.before + listed.items.length < listed.total;
    return {
      users: listed.items.map((user) => toUserView(user, byId.get(user.roleId))),
      pagination: paginationOf({ page: after === undefined ? page : Math.floor(listed.before / pageSize) + 1, pageSize }, listed.total),
      ...(more ? { nextAfter: last.id } : {}),
    };
  }
}

/** A page, the total, and how many matches come before the page. */
type Listed = { items: User[]; total: number; before: number };

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
    // composed, NFC); trimmed, as stored names are and e-mails and usernames hold no white space. Text with an
    // "@" is keyed as an address, its domain as DNS reads it, so a whole internationalised domain finds its
    // users (their keys hold its ASCII form).
    const text = q.trim();
    const prefix = text.includes('@') ? Email.normalize(text) : comparisonKey(text);
    if (prefix === '') problems.push({ field: 'q', message: 'must not be blank' });
    else values.prefix = prefix;
  }
  if (problems.length > 0) throw new ValidationError(problems);
  return values;
}
