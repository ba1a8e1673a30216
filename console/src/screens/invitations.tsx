import { useState } from 'preact/hooks';
import { call } from '../api/client';
import { canHandOut, holds, P } from '../logic/access';
import { displayName } from '../logic/format';
import { explain } from '../logic/problems';
import { FailureNote, Field, Link, LoadFailure, Loading, LocalTime, Notice, Screen, Select, TableWrap, useConsole } from '../ui/components';
import { Confirmed } from '../ui/confirmed';
import { useAction, useLoad, useNotice } from '../ui/use-load';
import { useRoles } from '../ui/use-roles';
import { PendingInvitationExpiry } from './invitation-expiry';
import { Pager } from './users-list';

const value = (event: Event) => (event.currentTarget as HTMLInputElement).value;

/** Invite by e-mail with a name and a role; the pending invitations, resent or revoked. */
export function InvitationsScreen() {
  const { api, permissions } = useConsole();
  const [page, setPage] = useState(1);
  const [notice, setNotice] = useNotice();
  /** How many times each row's invitation was resent here: only that row reads its link's expiry again. */
  const [resent, setResent] = useState<Record<string, number>>({});
  // The pending invitations are users in the list: a role that may invite but not read users sees the form alone.
  const mayList = holds(permissions, P.usersRead);
  const pending = useLoad(async () => (mayList ? call(api.GET('/v1/users', { params: { query: { status: 'pending', page, page_size: 25 } } })) : null), `pending-${page}`);
  const rowAction = useAction();

  return (
    <Screen title="Invitations">
      <InviteForm
        onInvited={(email) => {
          setNotice(`Invitation sent to ${email}.`);
          pending.reload();
        }}
      />
      <Notice text={notice} />
      <section aria-labelledby="pending-title">
        <h2 id="pending-title">Pending invitations</h2>
        <p class="hint">An invitation link works once and expires after the service’s INVITATION_TTL (7 days unless configured). Resending sends a new link, even after expiry.</p>
        <FailureNote failure={rowAction.failure} />
        {pending.state === 'failed' && <LoadFailure failure={pending.failure} onRetry={pending.reload} />}
        {!mayList && <p>Listing them takes the users:read permission, which your role does not hold. The invitations you send here are sent all the same.</p>}
        {mayList && !pending.data && pending.state === 'loading' && <Loading what="the pending invitations" />}
        {pending.data && pending.data.users.length === 0 && <p class="empty">Nobody is waiting to join.</p>}
        {pending.data && pending.data.users.length > 0 && (
          <TableWrap label="Pending invitations">
            <table>
              <thead>
                <tr>
                  <th scope="col">Invitee</th>
                  <th scope="col">Role</th>
                  <th scope="col">Invited</th>
                  <th scope="col">Link</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {pending.data.users.map((user) => (
                  <tr key={user._id}>
                    <th scope="row">
                      <Link href={`/console/users/${encodeURIComponent(user._id)}`}>{displayName(user)}</Link>
                      {user.name && <span class="sub"> {user.email}</span>}
                    </th>
                    <td>{user.role.name}</td>
                    <td>
                      <LocalTime iso={user.invited_date} />
                    </td>
                    <td>
                      <PendingInvitationExpiry userId={user._id} version={resent[user._id] ?? 0} />
                    </td>
                    <td class="row-actions">
                      {canHandOut(permissions, user.role) ? (
                        <>
                          <button type="button" class="secondary" disabled={rowAction.busy} aria-label={`Resend the invitation to ${user.email}`} onClick={() => void rowAction.run(async () => {
                            await call(api.POST('/v1/users/{id}/invitation/resend', { params: { path: { id: user._id } } }));
                            setNotice(`A new invitation was sent to ${user.email}; the old link no longer works.`);
                            setResent((counts) => ({ ...counts, [user._id]: (counts[user._id] ?? 0) + 1 }));
                          })}>Resend</button>
                          <Confirmed id={`confirm-revoke-${user._id}`} action={`Revoke the invitation of ${user.email}`} label="Revoke" words={[user.email]} busy={rowAction.busy} onConfirm={() => rowAction.run(async () => {
                            await call(api.DELETE('/v1/users/{id}/invitation', { params: { path: { id: user._id } } }));
                            setNotice(`The invitation of ${user.email} is revoked.`);
                            pending.reload();
                          })} />
                        </>
                      ) : (
                        <span class="sub">Their role holds permissions yours does not</span>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
        {pending.data && pending.data.pagination.page_count > 1 && (
          <Pager page={page} pageCount={pending.data.pagination.page_count} total={pending.data.pagination.total_document} pageSize={25} onPage={setPage} />
        )}
      </section>
    </Screen>
  );
}

function InviteForm(props: { onInvited(email: string): void }) {
  const { api, permissions } = useConsole();
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState('');
  const invite = useAction();
  const roles = useRoles();
  const handable = (roles.data ?? []).filter((r) => canHandOut(permissions, r));
  const fields = invite.failure ? explain(invite.failure, ['email', 'name', 'role']).fields : {};
  return (
    <form
      class="card"
      aria-labelledby="invite-title"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        void invite
          .run(async () => {
            await call(api.POST('/v1/users/invite', { body: { email: email.trim(), ...(name.trim() ? { name: name.trim() } : {}), ...(role ? { role } : {}) } }));
          })
          .then((ok) => {
            if (!ok) return;
            props.onInvited(email.trim());
            setEmail('');
            setName('');
          });
      }}
    >
      <h2 id="invite-title">Invite someone</h2>
      <Field id="email" label="E-mail" type="email" autoComplete="off" required value={email} onInput={(e) => setEmail(value(e))} error={fields.email} />
      <Field id="name" label="Name (optional)" autoComplete="off" value={name} maxLength={200} onInput={(e) => setName(value(e))} error={fields.name} />
      {handable.length > 0 && (
        <Select
          id="role"
          label="Role"
          value={role}
          onChange={setRole}
          options={[{ value: '', label: 'member (the default)' }, ...handable.filter((r) => r.name !== 'member').map((r) => ({ value: r._id, label: r.name }))]}
          error={fields.role}
        />
      )}
      <FailureNote failure={invite.failure} fields={['email', 'name', 'role']} />
      <button type="submit" disabled={invite.busy}>
        {invite.busy ? 'Sending…' : 'Send invitation'}
      </button>
    </form>
  );
}
