import { useEffect, useState } from 'preact/hooks';
import { call } from '../api/client';
import { canHandOut, holds, P } from '../logic/access';
import { explain } from '../logic/problems';
import { changeListQuery, pageApiQuery, pageQueryString, parsePageQuery, type PageQuery } from '../logic/url-state';
import { FailureNote, Field, Link, LoadFailure, Loading, LocalTime, Screen, Select, TableWrap, useConsole } from '../ui/components';
import { navigate } from '../ui/router';
import { useAction, useLoad } from '../ui/use-load';
import { useRoles } from '../ui/use-roles';
import { ServiceAccountPage } from './service-account-page';
import { ListPager } from './users-list';

/**
 * Service accounts: the list page by page and a create form; /console/service-accounts/{id} is one account. An
 * account is created on the list, so /console/service-accounts/new (as /console/roles/new creates a role) is the
 * list with its create form's first field focused.
 */
export function ServiceAccountsScreen(props: { id: string | null; search: string }) {
  // Keyed by id, as a role's page is: another account's page never keeps this one's secret or fields.
  if (props.id && props.id !== 'new') return <ServiceAccountPage key={props.id} id={props.id} />;
  return <ServiceAccountList search={props.search} create={props.id === 'new'} />;
}

function ServiceAccountList(props: { search: string; create: boolean }) {
  const { api, permissions } = useConsole();
  const query = parsePageQuery(props.search);
  const go = (change: Partial<PageQuery>) => navigate(`/console/service-accounts${pageQueryString(changeListQuery(query, change))}`);
  // After the Screen's own focus (its heading's, on a move within the console): the form is what was asked for.
  useEffect(() => {
    if (!props.create) return;
    document.getElementById('sa-name')?.focus();
    navigate(`/console/service-accounts${props.search}`, { replace: true });
  }, [props.create]);
  const accounts = useLoad(() => call(api.GET('/v1/service-accounts', { params: { query: pageApiQuery(query) } })), pageQueryString(query));
  const [created, setCreated] = useState<{ id: string; clientId: string; secret: string } | null>(null);
  return (
    <Screen title="Service accounts">
      {created && <SecretOnce title="Service account created" clientId={created.clientId} secret={created.secret} href={`/console/service-accounts/${encodeURIComponent(created.id)}`} />}
      {holds(permissions, P.serviceAccountsWrite) && (
        <CreateForm
          onCreated={(account) => {
            setCreated(account);
            // The list is oldest first: the new account is on the last page, so that page is the one shown.
            const last = Math.ceil(((accounts.data?.pagination.total_document ?? 0) + 1) / query.pageSize);
            if (last === query.page) accounts.reload();
            else go({ page: last });
          }}
        />
      )}
      {accounts.state === 'failed' && <LoadFailure failure={accounts.failure} onRetry={accounts.reload} />}
      {!accounts.data && accounts.state === 'loading' && <Loading what="the service accounts" />}
      {accounts.data && accounts.data.pagination.total_document === 0 && <p class="empty">No service account yet.</p>}
      {accounts.data && accounts.data.service_accounts.length > 0 && (
        <TableWrap label="Service accounts">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Client id</th>
                <th scope="col">Role</th>
                <th scope="col">State</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {accounts.data.service_accounts.map((account) => (
                <tr key={account._id}>
                  <th scope="row">
                    <Link href={`/console/service-accounts/${encodeURIComponent(account._id)}`}>{account.name}</Link>
                  </th>
                  <td>
                    <code>{account.client_id}</code>
                  </td>
                  <td>{account.role.name}</td>
                  <td>{account.disabled ? 'Disabled' : 'Enabled'}</td>
                  <td>
                    <LocalTime iso={account.created_date} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      {accounts.data && <ListPager query={query} pagination={accounts.data.pagination} go={go} />}
    </Screen>
  );
}

/** A secret shown this once, with a copy button: the service keeps only its hash. */
export function SecretOnce(props: { title: string; clientId?: string; secret: string; href?: string }) {
  const [copied, setCopied] = useState<string | null>(null);
  const copy = () =>
    navigator.clipboard.writeText(props.secret).then(
      () => setCopied('Copied.'),
      () => setCopied('Copying is not allowed here: select the secret and copy it by hand.'),
    );
  return (
    <div class="card secret" role="region" aria-labelledby="secret-title">
      <h2 id="secret-title">{props.title}</h2>
      <p>Copy the secret now: it is shown only this once, and the service keeps only its hash.</p>
      {props.clientId && (
        <p>
          Client id: <code>{props.clientId}</code>
        </p>
      )}
      <p>
        Secret: <code id="one-time-secret">{props.secret}</code>
      </p>
      <button type="button" onClick={() => void copy()}>
        Copy the secret
      </button>
      <p role="status">{copied ?? ''}</p>
      {props.href && <Link href={props.href}>Open the service account</Link>}
    </div>
  );
}

function CreateForm(props: { onCreated(account: { id: string; clientId: string; secret: string }): void }) {
  const { api, permissions } = useConsole();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [role, setRole] = useState('');
  const create = useAction();
  const roles = useRoles();
  const handable = (roles.data ?? []).filter((r) => canHandOut(permissions, r));
  const fields = create.failure ? explain(create.failure, ['name', 'role', 'description']).fields : {};
  return (
    <form
      class="card"
      aria-labelledby="create-sa-title"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        void create.run(async () => {
          const account = await call(
            api.POST('/v1/service-accounts', { body: { name: name.trim(), role: role || 'member', ...(description.trim() ? { description: description.trim() } : {}) } }),
          );
          props.onCreated({ id: account._id, clientId: account.client_id, secret: account.client_secret });
          setName('');
          setDescription('');
        });
      }}
    >
      <h2 id="create-sa-title">New service account</h2>
      <Field id="sa-name" label="Name" value={name} maxLength={64} onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)} error={fields.name} />
      <Field id="sa-description" label="Description (optional)" value={description} maxLength={500} onInput={(e) => setDescription((e.currentTarget as HTMLInputElement).value)} error={fields.description} />
      <Select id="sa-role" label="Role" value={role} onChange={setRole} options={[{ value: '', label: 'member (no permissions)' }, ...handable.filter((r) => r.name !== 'member').map((r) => ({ value: r._id, label: r.name }))]} error={fields.role} />
      <FailureNote failure={create.failure} fields={['name', 'role', 'description']} />
      <button type="submit" disabled={create.busy}>
        Create
      </button>
    </form>
  );
}
