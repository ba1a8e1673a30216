import { answered, call, type UserDetail } from '../api/client';
import { holds, P } from '../logic/access';
import { InvitationExpiry } from './invitation-expiry';
import { displayName } from '../logic/format';
import { usersListPath } from '../logic/url-state';
import { Link, LoadFailure, Loading, LocalTime, Screen, useConsole } from '../ui/components';
import { useLoad } from '../ui/use-load';
import { AuditEntries } from './audit-entries';
import { UserActions } from './user-actions';

const STATUS_WORDS: Record<UserDetail['status'], string> = { pending: 'Invited, not joined yet', active: 'Active', deactivated: 'Deactivated' };

export interface LoadedUser {
  user: UserDetail;
  etag: string | null;
  invitedBy: string | null;
}

/**
 * A user's page: who they are, what they may do, what happened to them, and what the viewer may change. `search`:
 * the state of the users list it was opened from (logic/url-state.ts), where its way back leads.
 */
export function UserScreen(props: { id: string; search: string }) {
  const { api, permissions } = useConsole();
  const list = usersListPath(props.search);
  const loaded = useLoad<LoadedUser>(async () => {
    const { data: user, headers } = await answered(api.GET('/v1/users/{id}', { params: { path: { id: props.id } } }));
    let invitedBy: string | null = null;
    if (user.invited_by) {
      try {
        invitedBy = displayName(await call(api.GET('/v1/users/{id}', { params: { path: { id: user.invited_by } } })));
      } catch {
        invitedBy = 'a user who has since been deleted';
      }
    }
    return { user, etag: headers.get('etag'), invitedBy };
  }, props.id);

  if (loaded.state === 'failed' && !loaded.data) {
    return (
      <Screen title="User">
        <LoadFailure failure={loaded.failure} onRetry={loaded.reload} />
        <p>
          <Link href={list}>Back to the users</Link>
        </p>
      </Screen>
    );
  }
  if (!loaded.data) {
    return (
      <Screen title="User">
        <Loading what="the user" />
      </Screen>
    );
  }
  const { user, invitedBy } = loaded.data;
  return (
    <Screen title={displayName(user)}>
      <p>
        <Link href={list}>Back to the users</Link>
      </p>
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <span class={`badge ${user.status}`}>{STATUS_WORDS[user.status]}</span>
        </dd>
        <dt>Name</dt>
        <dd>{user.name ?? '—'}</dd>
        <dt>Username</dt>
        <dd>{user.username ?? '—'}</dd>
        <dt>E-mail</dt>
        <dd>{user.email}</dd>
        <dt>Role</dt>
        <dd>
          {user.role.name} <span class="sub">({user.role.permissions.length === 0 ? 'no permissions' : user.role.permissions.join(', ')})</span>
        </dd>
        <dt>Invited</dt>
        <dd>
          <LocalTime iso={user.invited_date} />
          {invitedBy && <> by {invitedBy}</>}
        </dd>
        <dt>Joined</dt>
        <dd>{user.joined_date ? <LocalTime iso={user.joined_date} /> : 'Not yet'}</dd>
        {user.status === 'pending' && (
          <>
            <dt>Invitation link</dt>
            <dd>
              <InvitationExpiry iso={user.invitation_expires_date} />
            </dd>
          </>
        )}
        <dt>Last changed</dt>
        <dd>
          <LocalTime iso={user.updated_date} />
        </dd>
      </dl>
      <UserActions loaded={loaded.data} stale={loaded.state === 'loading'} onChanged={loaded.reload} list={list} />
      {holds(permissions, P.auditRead) && (
        <section aria-labelledby="user-audit">
          <h2 id="user-audit">What happened to {displayName(user)}</h2>
          <AuditEntries filters={{ target: user._id }} pageSize={20} version={loaded.data.etag} />
        </section>
      )}
    </Screen>
  );
}
