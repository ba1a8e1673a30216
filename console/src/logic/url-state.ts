/**
 * A list's state lives in the URL (shareable, the back button walks it): parsed from and written to a query
 * string, defaults left out so the plain /console/users is page 1 of everyone. No DOM here: unit-tested.
 */
export const PAGE_SIZES = [10, 25, 50, 100] as const;
export const STATUSES = ['pending', 'active', 'deactivated'] as const;
export type UserStatus = (typeof STATUSES)[number];

export interface UsersQuery {
  page: number;
  pageSize: number;
  q: string;
  role: string;
  status: UserStatus | '';
}

export const DEFAULT_USERS_QUERY: UsersQuery = { page: 1, pageSize: 10, q: '', role: '', status: '' };

/** A list without filters (roles, service accounts): its page and page size, as the users list keeps them. */
export type PageQuery = Pick<UsersQuery, 'page' | 'pageSize'>;

const positive = (value: string | null, fallback: number, max: number): number => {
  if (value === null || !/^[1-9][0-9]{0,9}$/.test(value)) return fallback;
  return Math.min(Number(value), max);
};

export function parsePageQuery(search: string): PageQuery {
  const params = new URLSearchParams(search);
  const size = positive(params.get('page_size'), DEFAULT_USERS_QUERY.pageSize, 100);
  return {
    page: positive(params.get('page'), 1, 1_000_000_000),
    pageSize: (PAGE_SIZES as readonly number[]).includes(size) ? size : DEFAULT_USERS_QUERY.pageSize,
  };
}

export function parseUsersQuery(search: string): UsersQuery {
  const params = new URLSearchParams(search);
  const status = params.get('status') ?? '';
  return {
    ...parsePageQuery(search),
    q: (params.get('q') ?? '').trim().slice(0, 254),
    role: (params.get('role') ?? '').trim().slice(0, 64),
    status: (STATUSES as readonly string[]).includes(status) ? (status as UserStatus) : '',
  };
}

export function usersQueryString(query: UsersQuery): string {
  const params = new URLSearchParams();
  if (query.q) params.set('q', query.q);
  if (query.role) params.set('role', query.role);
  if (query.status) params.set('status', query.status);
  return withPage(params, query);
}

/**
 * A user's page opened from the list carries the list's state in its own query string, so its way back (and a
 * reload or a shared link of it) returns to the list as it was: the same filters, page and page size.
 */
export function userPath(id: string, list: UsersQuery): string {
  return `/console/users/${encodeURIComponent(id)}${usersQueryString(list)}`;
}

/** The users list a user's page came from, read from that page's query string. */
export function usersListPath(userPageSearch: string): string {
  return `/console/users${usersQueryString(parseUsersQuery(userPageSearch))}`;
}

export function pageQueryString(query: PageQuery): string {
  return withPage(new URLSearchParams(), query);
}

function withPage(params: URLSearchParams, query: PageQuery): string {
  if (query.pageSize !== DEFAULT_USERS_QUERY.pageSize) params.set('page_size', String(query.pageSize));
  if (query.page !== 1) params.set('page', String(query.page));
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** A change of filter or page size starts again at page 1; a change of page keeps the filters. */
export function changeListQuery<Q extends PageQuery>(query: Q, change: Partial<Q>): Q {
  const next = { ...query, ...change };
  if (change.page === undefined) next.page = 1;
  return next;
}

/** The API's query for a state: only what is set (an empty filter is a 400 there). */
export function usersApiQuery(query: UsersQuery): Record<string, string | number> {
  return {
    ...pageApiQuery(query),
    ...(query.q ? { q: query.q } : {}),
    ...(query.role ? { role: query.role } : {}),
    ...(query.status ? { status: query.status } : {}),
  };
}

export function pageApiQuery(query: PageQuery): { page: number; page_size: number } {
  return { page: query.page, page_size: query.pageSize };
}

/** The audit view's filters, in the URL as the API names them. */
export const AUDIT_FILTERS = ['actor', 'target', 'action', 'outcome', 'from', 'to'] as const;
export type AuditFilters = Partial<Record<(typeof AUDIT_FILTERS)[number], string>>;

export function parseAuditFilters(search: string): AuditFilters {
  const params = new URLSearchParams(search);
  const filters: AuditFilters = {};
  for (const name of AUDIT_FILTERS) {
    const value = (params.get(name) ?? '').trim();
    if (value) filters[name] = value.slice(0, 64);
  }
  return filters;
}

export function auditQueryString(filters: AuditFilters): string {
  const params = new URLSearchParams();
  for (const name of AUDIT_FILTERS) if (filters[name]) params.set(name, filters[name]!);
  const text = params.toString();
  return text ? `?${text}` : '';
}
