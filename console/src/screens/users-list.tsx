import { useEffect, useState } from 'preact/hooks';
import { call, type Schemas, type User } from '../api/client';
import { holds, P } from '../logic/access';
import { displayName } from '../logic/format';
import { changeListQuery, PAGE_SIZES, type PageQuery, parseUsersQuery, STATUSES, userPath, usersApiQuery, usersQueryString, type UsersQuery } from '../logic/url-state';
import { Link, LoadFailure, Loading, LocalTime, Screen, Select, TableWrap, useConsole } from '../ui/components';
import { navigate } from '../ui/router';
import { useLoad } from '../ui/use-load';
import { useRoles } from '../ui/use-roles';

const STATUS_WORDS: Record<string, string> = { pending: 'Invited', active: 'Active', deactivated: 'Deactivated' };

/** The users list: page sizes, search, role and status filters, all in the URL; one request per change. */
export function UsersScreen(props: { search: string }) {
  const { api, permissions } = useConsole();
  const query = parseUsersQuery(props.search);
  const go = (change: Partial<UsersQuery>) => navigate(`/console/users${usersQueryString(changeListQuery(query, change))}`);
  const users = useLoad(() => call(api.GET('/v1/users', { params: { query: usersApiQuery(query) } })), usersQueryString(query));
  const roles = useRoles();
  const [typed, setTyped] = useState(query.q);
  useEffect(() => setTyped(query.q), [query.q]);

  const roleOptions = [{ value: '', label: 'Any role' }, ...(roles.data ?? []).map((role) => ({ value: role.name, label: role.name }))];
  if (query.role && !roleOptions.some((option) => option.value === query.role)) roleOptions.push({ value: query.role, label: query.role });

  return (
    <Screen
      title="Users"
      actions={
        holds(permissions, P.usersInvite) ? (
          <Link class="button" href="/console/invitations">
            Invite someone
          </Link>
        ) : undefined
      }
    >
      <form
        class="filters"
        role="search"
        aria-label="Find users"
        onSubmit={(event) => {
          event.preventDefault();
          go({ q: typed.trim() });
        }}
      >
        <div class="field grow">
          <label for="users-q">Name, username or e-mail starts with</label>
          <input id="users-q" type="search" value={typed} maxLength={254} onInput={(e) => setTyped((e.currentTarget as HTMLInputElement).value)} />
        </div>
        <button type="submit">Search</button>
        <Select id="users-role" label="Role" value={query.role} options={roleOptions} onChange={(role) => go({ role })} />
        <Select
          id="users-status"
          label="Status"
          value={query.status}
          options={[{ value: '', label: 'Any status' }, ...STATUSES.map((status) => ({ value: status, label: STATUS_WORDS[status]! }))]}
          onChange={(status) => go({ status: status as UsersQuery['status'] })}
        />
      </form>
      {users.state === 'failed' && <LoadFailure failure={users.failure} onRetry={users.reload} />}
      {users.state === 'loading' && !users.data && <Loading what="users" />}
      {users.data && <UsersTable users={users.data.users} query={query} busy={users.state === 'loading'} />}
      {users.data && <ListPager query={query} pagination={users.data.pagination} go={go} />}
    </Screen>
  );
}

function UsersTable(props: { users: User[]; query: UsersQuery; busy: boolean }) {
  if (props.users.length === 0) {
    return (
      <p class="empty" role="status">
        No user matches these filters.
      </p>
    );
  }
  return (
    <TableWrap label="Users">
      <table aria-busy={props.busy ? 'true' : 'false'}>
        <caption class="visually-hidden">Users{props.busy ? ' (loading)' : ''}</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">E-mail</th>
            <th scope="col">Role</th>
            <th scope="col">Joined</th>
          </tr>
        </thead>
        <tbody>
          {props.users.map((user) => (
            <tr key={user._id}>
              <th scope="row">
                <Link href={userPath(user._id, props.query)}>{displayName(user)}</Link>
                {user.username && user.name && <span class="sub"> @{user.username}</span>}
              </th>
              <td>{user.email}</td>
              <td>{user.role.name}</td>
              <td>{user.joined_date ? <LocalTime iso={user.joined_date} /> : <span class="badge">Invited</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

/** The pager of a list whose page and page size live in the URL (users, roles, service accounts). */
export function ListPager(props: { query: PageQuery; pagination: Schemas['Pagination']; go(change: Partial<PageQuery>): void }) {
  const { query, pagination, go } = props;
  return <Pager page={query.page} pageCount={pagination.page_count} total={pagination.total_document} pageSize={query.pageSize} onPage={(page) => go({ page })} onPageSize={(pageSize) => go({ pageSize })} />;
}

export function Pager(props: { page: number; pageCount: number; total: number; pageSize: number; onPage(page: number): void; onPageSize?(size: number): void }) {
  const last = Math.max(1, props.pageCount);
  return (
    <nav class="pager" aria-label="Pages">
      <p>
        Page {props.page} of {last} · {props.total} in all
      </p>
      {/* Past the end (an old link, users deleted since): Previous goes to the last page, not to another empty one. */}
      <button type="button" class="secondary" disabled={props.page <= 1} onClick={() => props.onPage(Math.min(props.page - 1, last))}>
        Previous page
      </button>
      <button type="button" class="secondary" disabled={props.page >= last} onClick={() => props.onPage(props.page + 1)}>
        Next page
      </button>
      {props.onPageSize && (
        <Select
          id="page-size"
          label="Per page"
          value={String(props.pageSize)}
          options={PAGE_SIZES.map((size) => ({ value: String(size), label: String(size) }))}
          onChange={(size) => props.onPageSize!(Number(size))}
        />
      )}
    </nav>
  );
}
