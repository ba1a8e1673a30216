import { useEffect, useState } from 'preact/hooks';
import { answered, call, type Role } from '../api/client';
import { groupPermissions, holds, P } from '../logic/access';
import { explain } from '../logic/problems';
import { changeListQuery, pageApiQuery, pageQueryString, parsePageQuery, type PageQuery } from '../logic/url-state';
import { FailureNote, Field, Link, LoadFailure, Loading, LocalTime, Screen, TableWrap, useConsole } from '../ui/components';
import { Confirmed } from '../ui/confirmed';
import { navigate } from '../ui/router';
import { useAction, useLoad, useNotice } from '../ui/use-load';
import { ListPager } from './users-list';

/** Roles: the list page by page, and a role's editor (/console/roles/new creates one). */
export function RolesScreen(props: { id: string | null; search: string }) {
  // Keyed by id: another role's page is a new form, never this one's fields under that one's name (a jump back
  // through the history reuses the component, and its fields were filled from the first role read).
  if (props.id === 'new') return <RoleEditor key="new" role={null} etag={null} />;
  if (props.id) return <RolePage key={props.id} id={props.id} />;
  return <RoleList search={props.search} />;
}

function RoleList(props: { search: string }) {
  const { api, permissions } = useConsole();
  const query = parsePageQuery(props.search);
  const go = (change: Partial<PageQuery>) => navigate(`/console/roles${pageQueryString(changeListQuery(query, change))}`);
  const roles = useLoad(() => call(api.GET('/v1/roles', { params: { query: pageApiQuery(query) } })), pageQueryString(query));
  return (
    <Screen
      title="Roles"
      actions={
        holds(permissions, P.rolesWrite) ? (
          <Link class="button" href="/console/roles/new">
            New role
          </Link>
        ) : undefined
      }
    >
      {roles.state === 'failed' && <LoadFailure failure={roles.failure} onRetry={roles.reload} />}
      {!roles.data && roles.state === 'loading' && <Loading what="the roles" />}
      {roles.data && (
        <TableWrap label="Roles">
          <table>
            <thead>
              <tr>
                <th scope="col">Role</th>
                <th scope="col">Permissions</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {roles.data.roles.map((role) => (
                <tr key={role._id}>
                  <th scope="row">
                    <Link href={`/console/roles/${encodeURIComponent(role._id)}`}>{role.name}</Link>
                    {role.built_in && <span class="badge">built-in</span>}
                  </th>
                  <td>{role.permissions.length === 0 ? 'none' : role.permissions.join(', ')}</td>
                  <td>
                    <LocalTime iso={role.created_date} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      {roles.data && <ListPager query={query} pagination={roles.data.pagination} go={go} />}
    </Screen>
  );
}

function RolePage(props: { id: string }) {
  const { api } = useConsole();
  const loaded = useLoad(async () => {
    const { data, headers } = await answered(api.GET('/v1/roles/{id}', { params: { path: { id: props.id } } }));
    return { role: data, etag: headers.get('etag') };
  }, props.id);
  if (loaded.state === 'failed') {
    return (
      <Screen title="Role">
        <LoadFailure failure={loaded.failure} onRetry={loaded.reload} />
      </Screen>
    );
  }
  if (!loaded.data) {
    return (
      <Screen title="Role">
        <Loading what="the role" />
      </Screen>
    );
  }
  return <RoleEditor role={loaded.data.role} etag={loaded.data.etag} stale={loaded.state === 'loading'} onSaved={loaded.reload} />;
}

/** `stale`: the role is being read again after a save; its version (If-Match) is the old one until then. */
function RoleEditor(props: { role: Role | null; etag: string | null; stale?: boolean; onSaved?: () => void }) {
  const { api, permissions } = useConsole();
  const { role } = props;
  const [name, setName] = useState(role?.name ?? '');
  const [chosen, setChosen] = useState<Set<string>>(new Set(role?.permissions ?? []));
  // A conflict reads the role again (onSaved), so the retry carries its new version.
  const save = useAction(props.onSaved);
  const remove = useAction(props.onSaved);
  // Each version read is what the form shows: the one a conflict brings in replaces the fields, rather than a
  // retry sending them back over the other change unseen.
  useEffect(() => {
    if (!role) return;
    setName(role.name);
    setChosen(new Set(role.permissions));
  }, [props.etag]);
  const [saved, setSaved] = useNotice();
  const writable = holds(permissions, P.rolesWrite) && !(role?.built_in && role.name === 'admin');
  const ifMatch = props.etag ? { 'if-match': props.etag } : {};
  const fields = save.failure ? explain(save.failure, ['name', 'permissions']).fields : {};
  // What the role holds that the viewer does not: shown, never editable.
  const foreign = [...chosen].filter((p) => !permissions.includes(p));
  const toggle = (permission: string) => {
    const next = new Set(chosen);
    if (next.has(permission)) next.delete(permission);
    else next.add(permission);
    setChosen(next);
  };
  const submit = (event: Event) => {
    event.preventDefault();
    void save.run(async () => {
      const body = { name: name.trim(), permissions: [...chosen] };
      if (role) {
        await call(api.PATCH('/v1/roles/{id}', { params: { path: { id: role._id }, header: ifMatch }, body: role.built_in ? { permissions: body.permissions } : body }));
        setSaved('Saved.');
        props.onSaved?.();
      } else {
        const created = await call(api.POST('/v1/roles', { body }));
        navigate(`/console/roles/${encodeURIComponent(created._id)}`);
      }
    });
  };
  return (
    <Screen title={role ? `Role ${role.name}` : 'New role'}>
      <p>
        <Link href="/console/roles">Back to the roles</Link>
      </p>
      <form class="card" onSubmit={submit} noValidate aria-label={role ? `Edit the role ${role.name}` : 'Create a role'}>
        <Field id="role-name" label="Name" value={name} maxLength={64} disabled={!writable || role?.built_in} onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)} error={fields.name} hint="Letters, digits, . _ : or -, starting with a letter." />
        <fieldset aria-describedby={fields.permissions ? 'permissions-error' : undefined}>
          <legend>Permissions (only those your role holds can be given)</legend>
          {groupPermissions(permissions).map(([group, names]) => (
            <fieldset key={group} class="group">
              <legend>{group}</legend>
              {names.map((permission) => (
                <label key={permission} class="check">
                  <input type="checkbox" checked={chosen.has(permission)} disabled={!writable} onChange={() => toggle(permission)} />
                  {permission}
                </label>
              ))}
            </fieldset>
          ))}
          {foreign.length > 0 && <p class="hint">Also held, beyond your own permissions: {foreign.join(', ')}.</p>}
          {fields.permissions && (
            <p class="field-error" id="permissions-error">
              {fields.permissions}
            </p>
          )}
        </fieldset>
        <FailureNote failure={save.failure} fields={['name', 'permissions']} />
        {saved && <p role="status">{saved}</p>}
        {writable && (
          <button type="submit" disabled={save.busy || props.stale}>
            {role ? 'Save' : 'Create role'}
          </button>
        )}
      </form>
      {role && !role.built_in && holds(permissions, P.rolesWrite) && (
        <div class="card danger-zone">
          <h2>Delete this role</h2>
          <p>A role can be deleted only while nobody holds it: give its users and service accounts another role first.</p>
          <Confirmed id="confirm-delete-role" action={`Delete ${role.name}`} words={[role.name]} busy={remove.busy} disabled={props.stale} onConfirm={() => remove.run(async () => {
            await call(api.DELETE('/v1/roles/{id}', { params: { path: { id: role._id }, header: ifMatch } }));
            navigate('/console/roles');
          })} />
          <FailureNote failure={remove.failure} />
        </div>
      )}
    </Screen>
  );
}
