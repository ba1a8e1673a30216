import { useEffect, useState } from 'preact/hooks';
import { call } from '../api/client';
import { beyondViewer, canHandOut, holds, P } from '../logic/access';
import { displayName } from '../logic/format';
import { explain } from '../logic/problems';
import { FailureNote, Field, Notice, Select, useConsole } from '../ui/components';
import { Confirmed } from '../ui/confirmed';
import { navigate } from '../ui/router';
import { useAction, useNotice } from '../ui/use-load';
import { useRoles } from '../ui/use-roles';
import type { LoadedUser } from './user-page';

const value = (event: Event) => (event.currentTarget as HTMLInputElement).value;

/**
 * What the viewer may change of a user, each action with its failure in words next to it. `stale`: the user is
 * being read again after a change, so its version (If-Match) is the old one and every action waits for the new.
 * `list`: the users list the page came from, where a deletion returns.
 */
export function UserActions(props: { loaded: LoadedUser; stale: boolean; onChanged(): void; list: string }) {
  const { api, permissions, viewerId } = useConsole();
  const { user, etag } = props.loaded;
  const id = user._id;
  const ifMatch = etag ? { 'if-match': etag } : {};
  const own = id === viewerId;
  const [notice, setNotice] = useNotice();
  const done = (text: string) => {
    setNotice(text);
    props.onChanged();
  };
  // The actions that send the user's version: a conflict reads the user again (onChanged), and the retry carries it.
  const rename = useAction(props.onChanged);
  const role = useAction(props.onChanged);
  const status = useAction(props.onChanged);
  const mfa = useAction();
  const invitation = useAction();
  const remove = useAction(props.onChanged);
  const [name, setName] = useState(user.name ?? '');
  const [roleId, setRoleId] = useState(user.role._id);
  // Each version read (after a change here, or one made elsewhere that a conflict brought in) is what the fields
  // show: a field still holding the old value would send it back and undo the other change.
  useEffect(() => {
    setName(user.name ?? '');
    setRoleId(user.role._id);
  }, [etag]);
  const roles = useRoles();
  const handable = (roles.data ?? []).filter((r) => canHandOut(permissions, r) || r._id === user.role._id);
  const confirmWords = [user.username, user.email].filter((w): w is string => !!w);
  // The hand-out rule, as the API applies it to every change of a user: whoever lacks a permission of the user's role
  // changes nothing of its holders (403), so none of the actions is offered.
  const beyond = beyondViewer(permissions, user.role);
  if (beyond.length > 0) {
    return (
      <section aria-labelledby="user-actions" class="actions">
        <h2 id="user-actions">Manage</h2>
        <p>
          Their role, {user.role.name}, holds permissions yours does not ({beyond.join(', ')}): only someone whose role holds them can change,
          deactivate or delete its holders.
        </p>
      </section>
    );
  }

  return (
    <section aria-labelledby="user-actions" class="actions">
      <h2 id="user-actions">Manage</h2>
      <Notice text={notice} />
      {holds(permissions, P.usersUpdate) && user.status !== 'pending' && (
        <form
          class="card inline"
          onSubmit={(e) => (e.preventDefault(), void rename.run(async () => {
            await call(api.PATCH('/v1/users/{id}', { params: { path: { id }, header: ifMatch }, body: { name: name.trim() } }));
            done(`Renamed to ${name.trim()}.`);
          }))}
        >
          <Field id="user-name" label="Name" value={name} maxLength={200} onInput={(e) => setName(value(e))} error={rename.failure ? explain(rename.failure, ['name']).fields.name : undefined} />
          <button type="submit" disabled={rename.busy || props.stale}>Rename</button>
          <FailureNote failure={rename.failure} fields={['name']} />
        </form>
      )}
      {holds(permissions, P.usersUpdate) && holds(permissions, P.rolesRead) && (
        <form
          class="card inline"
          onSubmit={(e) => (e.preventDefault(), void role.run(async () => {
            const updated = await call(api.PATCH('/v1/users/{id}', { params: { path: { id }, header: ifMatch }, body: { role: roleId } }));
            done(`Role changed to ${updated.role.name}.`);
          }))}
        >
          <Select
            id="user-role"
            label="Role (only roles whose permissions you hold)"
            value={roleId}
            onChange={setRoleId}
            options={handable.map((r) => ({ value: r._id, label: r.name }))}
            error={role.failure ? explain(role.failure, ['role']).fields.role : undefined}
          />
          <button type="submit" disabled={role.busy || props.stale || roleId === user.role._id}>Change role</button>
          <FailureNote failure={role.failure} fields={['role']} />
        </form>
      )}
      <div class="button-row">
        {holds(permissions, P.usersDeactivate) && !own && user.status === 'active' && (
          <Confirmed id="confirm-deactivate" action="Deactivate" words={confirmWords} busy={status.busy} disabled={props.stale} onConfirm={() => status.run(async () => {
            await call(api.POST('/v1/users/{id}/deactivate', { params: { path: { id }, header: ifMatch } }));
            done(`${displayName(user)} is deactivated: they cannot sign in, and their sessions have ended.`);
          })}>
            <p>They will not be able to sign in, and every session of theirs ends now.</p>
          </Confirmed>
        )}
        {holds(permissions, P.usersDeactivate) && user.status === 'deactivated' && (
          <button type="button" disabled={status.busy || props.stale} onClick={() => void status.run(async () => {
            await call(api.POST('/v1/users/{id}/reactivate', { params: { path: { id }, header: ifMatch } }));
            done(`${displayName(user)} is active again.`);
          })}>Reactivate</button>
        )}
        {holds(permissions, P.usersUpdate) && !own && user.status !== 'pending' && (
          <Confirmed id="confirm-reset-mfa" action="Reset second factor" buttonClass="secondary" words={confirmWords} busy={mfa.busy} disabled={props.stale} onConfirm={() => mfa.run(async () => {
            await call(api.DELETE('/v1/users/{id}/mfa', { params: { path: { id } } }));
            done(`The second factor of ${displayName(user)} is removed; they sign in with the password alone and can set up a new one.`);
          })}>
            <p>Their authenticator app, passkeys and recovery codes are removed: they sign in with the password alone until they set up a new one.</p>
          </Confirmed>
        )}
        {holds(permissions, P.usersInvite) && user.status === 'pending' && (
          <>
            <button type="button" disabled={invitation.busy || props.stale} onClick={() => void invitation.run(async () => {
              await call(api.POST('/v1/users/{id}/invitation/resend', { params: { path: { id } } }));
              done(`A new invitation was sent to ${user.email}; the old link no longer works.`);
            })}>Resend invitation</button>
            <Confirmed id="confirm-revoke-invitation" action="Revoke invitation" words={confirmWords} busy={invitation.busy} disabled={props.stale} onConfirm={() => invitation.run(async () => {
              await call(api.DELETE('/v1/users/{id}/invitation', { params: { path: { id } } }));
              navigate('/console/invitations');
            })}>
              <p>Their invitation link stops working.</p>
            </Confirmed>
          </>
        )}
      </div>
      <FailureNote failure={status.failure} />
      <FailureNote failure={mfa.failure} />
      <FailureNote failure={invitation.failure} />
      {holds(permissions, P.usersDelete) && !own && (
        <div class="card danger-zone">
          <h3>Delete this user</h3>
          <Confirmed id="confirm-delete" action={`Delete ${displayName(user)}`} words={confirmWords} open busy={remove.busy} disabled={props.stale} onConfirm={() => remove.run(async () => {
            await call(api.DELETE('/v1/users/{id}', { params: { path: { id }, header: ifMatch } }));
            navigate(props.list);
          })}>
            <p>Deleting removes the account for good. Their audit entries stay.</p>
          </Confirmed>
          <FailureNote failure={remove.failure} />
        </div>
      )}
    </section>
  );
}
