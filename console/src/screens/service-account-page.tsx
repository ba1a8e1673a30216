import { useState } from 'preact/hooks';
import { answered, call } from '../api/client';
import { holds, P } from '../logic/access';
import { explain } from '../logic/problems';
import { FailureNote, Link, LoadFailure, Loading, LocalTime, Notice, Screen, Select, TableWrap, useConsole } from '../ui/components';
import { Confirmed } from '../ui/confirmed';
import { navigate } from '../ui/router';
import { useAction, useLoad, useNotice } from '../ui/use-load';
import { SecretOnce } from './service-accounts';

const OVERLAPS = [
  { value: '', label: 'Until deleted' },
  { value: '86400', label: '1 day' },
  { value: '2592000', label: '30 days' },
  { value: '31536000', label: '1 year' },
];

/** One service account: its secrets (rotated with overlap: add the next, then delete the old), keys, disable, delete. */
export function ServiceAccountPage(props: { id: string }) {
  const { api, permissions } = useConsole();
  const id = props.id;
  const loaded = useLoad(async () => {
    const { data, headers } = await answered(api.GET('/v1/service-accounts/{id}', { params: { path: { id } } }));
    const secrets = await call(api.GET('/v1/service-accounts/{id}/secrets', { params: { path: { id } } }));
    return { account: data, etag: headers.get('etag'), secrets: secrets.secrets };
  }, id);
  const [secret, setSecret] = useState<string | null>(null);
  const [notice, setNotice] = useNotice();
  const [expiresIn, setExpiresIn] = useState('');
  const [keys, setKeys] = useState('');
  // A conflict reads the account again, so the retry carries its new version (and shows what changed).
  const action = useAction(loaded.reload);
  const keysAction = useAction(loaded.reload);
  if (loaded.state === 'failed' && !loaded.data) {
    return (
      <Screen title="Service account">
        <LoadFailure failure={loaded.failure} onRetry={loaded.reload} />
      </Screen>
    );
  }
  if (!loaded.data) {
    return (
      <Screen title="Service account">
        <Loading what="the service account" />
      </Screen>
    );
  }
  const { account, etag, secrets } = loaded.data;
  const ifMatch = etag ? { 'if-match': etag } : {};
  const writable = holds(permissions, P.serviceAccountsWrite);
  // While the account is read again after a change, its version (If-Match) is the old one: a write would be refused.
  const stale = loaded.state === 'loading';
  const act = (work: () => Promise<string | void>) =>
    action.run(async () => {
      const said = await work();
      if (said) setNotice(said);
      loaded.reload();
    });
  return (
    <Screen title={`Service account ${account.name}`}>
      <p>
        <Link href="/console/service-accounts">Back to the service accounts</Link>
      </p>
      <dl class="facts">
        <dt>Client id</dt>
        <dd>
          <code>{account.client_id}</code>
        </dd>
        <dt>Role</dt>
        <dd>{account.role.name}</dd>
        <dt>State</dt>
        <dd>{account.disabled ? 'Disabled: it cannot get tokens, and its tokens are refused' : 'Enabled'}</dd>
        <dt>Description</dt>
        <dd>{account.description ?? '—'}</dd>
        <dt>Created</dt>
        <dd>
          <LocalTime iso={account.created_date} />
        </dd>
        <dt>Keys</dt>
        <dd>{account.keys.length === 0 ? 'None' : account.keys.map((key) => String((key as { kid?: string }).kid ?? '?')).join(', ')}</dd>
      </dl>
      {secret && <SecretOnce title="New secret" secret={secret} />}
      <Notice text={notice} />
      <FailureNote failure={action.failure} />
      <section aria-labelledby="secrets-title">
        <h2 id="secrets-title">Secrets</h2>
        <p class="hint">To rotate: add a new secret, move the client to it, then delete the old one. Both work in between.</p>
        <TableWrap label="Secrets">
          <table>
            <thead>
              <tr>
                <th scope="col">Created</th>
                <th scope="col">Expires</th>
                <th scope="col">Last used</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {secrets.map((s) => (
                <tr key={s._id}>
                  <td>
                    <LocalTime iso={s.created_date} />
                  </td>
                  <td>{s.expires_date ? <LocalTime iso={s.expires_date} /> : 'Never'}</td>
                  <td>{s.last_used_date ? <LocalTime iso={s.last_used_date} /> : 'Never'}</td>
                  <td>
                    {writable && (
                      <Confirmed id={`confirm-delete-secret-${s._id}`} action="Delete secret" words={[account.name]} busy={action.busy} disabled={stale} onConfirm={() => act(async () => {
                        await call(api.DELETE('/v1/service-accounts/{id}/secrets/{secretId}', { params: { path: { id, secretId: s._id } } }));
                        return 'Secret deleted.';
                      })} />
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
        {writable && (
          <div class="inline">
            <Select id="secret-expiry" label="New secret works" value={expiresIn} onChange={setExpiresIn} options={OVERLAPS} />
            <button type="button" disabled={action.busy || stale} onClick={() => void act(async () => {
              const added = await call(api.POST('/v1/service-accounts/{id}/secrets', { params: { path: { id }, header: ifMatch }, body: expiresIn ? { expires_in: Number(expiresIn) } : {} }));
              setSecret(added.client_secret);
            })}>Add a secret</button>
          </div>
        )}
      </section>
      {writable && (
        <section aria-labelledby="keys-title">
          <h2 id="keys-title">Keys (private_key_jwt)</h2>
          <form class="card" onSubmit={(event) => {
            event.preventDefault();
            void keysAction.run(async () => {
              let parsed: unknown;
              try {
                parsed = JSON.parse(keys);
              } catch {
                throw new Error('The keys are not JSON: paste a JWK, an array of JWKs, or a JWK set ({"keys": […]}).');
              }
              const list = Array.isArray(parsed) ? parsed : parsed && typeof parsed === 'object' && 'keys' in parsed ? (parsed as { keys: unknown[] }).keys : [parsed];
              await call(api.PUT('/v1/service-accounts/{id}/keys', { params: { path: { id }, header: ifMatch }, body: { keys: list as Record<string, string>[] } }));
              setNotice(`${list.length} key${list.length === 1 ? '' : 's'} registered.`);
              setKeys('');
              loaded.reload();
            });
          }}>
            <div class="field">
              <label for="sa-keys">Public keys (JWK or JWK set; replaces the registered ones)</label>
              <textarea id="sa-keys" rows={5} value={keys} aria-invalid={keysAction.failure ? 'true' : undefined} onInput={(e) => setKeys((e.currentTarget as HTMLTextAreaElement).value)} />
            </div>
            <FailureNote failure={keysAction.failure} fields={[]} />
            {keysAction.failure && explain(keysAction.failure).message === '' && <p class="field-error">The keys are not valid.</p>}
            <button type="submit" disabled={keysAction.busy || stale || !keys.trim()}>
              Register keys
            </button>
          </form>
        </section>
      )}
      {writable && (
        <div class="card danger-zone">
          <h2>Disable or delete</h2>
          <div class="button-row">
            {account.disabled ? (
              <button type="button" class="secondary" disabled={action.busy || stale} onClick={() => void act(async () => {
                await call(api.PATCH('/v1/service-accounts/{id}', { params: { path: { id }, header: ifMatch }, body: { disabled: false } }));
                return 'Enabled.';
              })}>Enable</button>
            ) : (
              <Confirmed id="confirm-disable" action="Disable" buttonClass="secondary" words={[account.name]} busy={action.busy} disabled={stale} onConfirm={() => act(async () => {
                await call(api.PATCH('/v1/service-accounts/{id}', { params: { path: { id }, header: ifMatch }, body: { disabled: true } }));
                return 'Disabled: its tokens are refused from now on.';
              })}>
                <p>It can no longer get tokens, and the tokens it holds are refused from now on.</p>
              </Confirmed>
            )}
            <Confirmed id="confirm-delete-account" action={`Delete ${account.name}`} words={[account.name]} busy={action.busy} disabled={stale} onConfirm={() => action.run(async () => {
              await call(api.DELETE('/v1/service-accounts/{id}', { params: { path: { id }, header: ifMatch } }));
              navigate('/console/service-accounts');
            })}>
              <p>Deleting removes the account, its secrets and keys for good.</p>
            </Confirmed>
          </div>
        </div>
      )}
    </Screen>
  );
}
