import { useState } from 'preact/hooks';
import { call } from '../api/client';
import type { paths } from '../api/openapi';
import type { FactorProof } from '../logic/factor-proof';
import { explain } from '../logic/problems';
import { createPasskey, passkeyFailure, passkeysSupported } from '../session/webauthn';
import { FailureNote, Field, LoadFailure, Loading, LocalTime, Notice, useConsole } from '../ui/components';
import { ProofForm } from '../ui/proof-field';
import { useAction, useLoad, useNotice } from '../ui/use-load';
import { RecoveryCodes } from './totp-setup';

const value = (event: Event) => (event.currentTarget as HTMLInputElement).value;

/** The browser's credential JSON is the RegistrationResponseJSON the API reads, typed apart by the DOM's lib. */
type Registration = paths['/v1/me/mfa/webauthn']['post']['requestBody']['content']['application/json'];

/** One's passkeys (#24): add one (with the password or a current code; the browser creates it), rename, remove (with the password). */
export function Passkeys() {
  const { api } = useConsole();
  const factors = useLoad(() => call(api.GET('/v1/me/mfa')), 'passkeys');
  const passkeys = (factors.data?.factors ?? []).filter((factor) => factor.type === 'webauthn' && factor.id);
  const hasApp = (factors.data?.factors ?? []).some((factor) => factor.type === 'totp' && factor.confirmed);
  const [name, setName] = useState('');
  const [notice, setNotice] = useNotice();
  const [codes, setCodes] = useState<string[] | null>(null);
  const { add, refusal, addPasskey } = useAddPasskey((added) => {
    setNotice(`Passkey “${added.name}” added: it signs you in as a second factor.`);
    if (added.recovery_codes) setCodes(added.recovery_codes);
    setName('');
    factors.reload();
  });
  return (
    <section class="card" aria-labelledby="passkeys-title">
      <h2 id="passkeys-title">Passkeys</h2>
      <Notice text={notice} />
      {codes && <RecoveryCodes codes={codes} onDone={() => setCodes(null)} />}
      {factors.state === 'failed' && <LoadFailure failure={factors.failure} onRetry={factors.reload} />}
      {!factors.data && factors.state === 'loading' && <Loading what="your passkeys" />}
      {factors.data && passkeys.length === 0 && <p>No passkey yet.</p>}
      {passkeys.length > 0 && (
        <ul class="passkeys">
          {passkeys.map((passkey) => (
            <PasskeyItem key={passkey.id} passkey={passkey as PasskeyFactor} onChanged={(said) => (setNotice(said), factors.reload())} />
          ))}
        </ul>
      )}
      {passkeysSupported() ? (
        <ProofForm id="passkey-proof" purpose="add a passkey" hasApp={hasApp} submit="Add a passkey" busy={add.busy} failure={add.failure} onProof={(proof) => addPasskey(name, proof)}>
          <Field id="passkey-name" label="Name of the new passkey (optional)" value={name} maxLength={64} onInput={(e) => setName(value(e))} />
        </ProofForm>
      ) : (
        <p>This browser cannot create passkeys.</p>
      )}
      {refusal && (
        <p class="failure" role="alert">
          {refusal}
        </p>
      )}
    </section>
  );
}

/**
 * Adding a passkey: options from the API (on the password or a current authenticator code), the browser creates
 * it, the API registers it; a browser's refusal in words.
 */
export function useAddPasskey(onAdded: (added: { name: string; recovery_codes?: string[] }) => void) {
  const { api } = useConsole();
  const add = useAction();
  const [refusal, setRefusal] = useNotice();
  const addPasskey = (name: string, proof: FactorProof) =>
    add.run(async () => {
      const options = await call(api.POST('/v1/me/mfa/webauthn/registration-options', { body: proof }));
      let credential: PublicKeyCredentialJSON;
      try {
        credential = await createPasskey(options);
      } catch (error) {
        const refused = passkeyFailure(error);
        if (!refused) throw error;
        setRefusal(refused);
        return;
      }
      const body = { ...(name.trim() ? { name: name.trim() } : {}), response: credential } as unknown as Registration;
      onAdded(await call(api.POST('/v1/me/mfa/webauthn', { body })));
    });
  return { add, refusal, addPasskey };
}

interface PasskeyFactor {
  id: string;
  name?: string;
  created_date: string;
  last_used_date?: string;
}

function PasskeyItem(props: { passkey: PasskeyFactor; onChanged(said: string): void }) {
  const { api } = useConsole();
  const { passkey } = props;
  const [name, setName] = useState(passkey.name ?? '');
  const [password, setPassword] = useState('');
  const rename = useAction();
  const remove = useAction();
  const label = passkey.name ?? 'Passkey';
  return (
    <li class="card">
      <p>
        <strong>{label}</strong> · added <LocalTime iso={passkey.created_date} /> · {passkey.last_used_date ? <>last used <LocalTime iso={passkey.last_used_date} /></> : 'never used'}
      </p>
      <form
        class="inline"
        onSubmit={(event) => {
          event.preventDefault();
          void rename.run(async () => {
            await call(api.PATCH('/v1/me/mfa/webauthn/{id}', { params: { path: { id: passkey.id } }, body: { name: name.trim() } }));
            props.onChanged(`Renamed to “${name.trim()}”.`);
          });
        }}
      >
        <Field id={`passkey-${passkey.id}-name`} label={`New name for ${label}`} value={name} maxLength={64} onInput={(e) => setName(value(e))} error={rename.failure ? explain(rename.failure, ['name']).fields.name : undefined} />
        <button type="submit" class="secondary" disabled={rename.busy || !name.trim()}>
          Rename
        </button>
      </form>
      <FailureNote failure={rename.failure} fields={['name']} />
      <form
        class="inline"
        onSubmit={(event) => {
          event.preventDefault();
          void remove.run(async () => {
            await call(api.DELETE('/v1/me/mfa/webauthn/{id}', { params: { path: { id: passkey.id } }, body: { password } }));
            props.onChanged(`Passkey “${label}” removed.`);
          });
        }}
      >
        <Field id={`passkey-${passkey.id}-password`} label={`Your password, to remove ${label}`} type="password" autoComplete="current-password" value={password} onInput={(e) => setPassword(value(e))} error={remove.failure ? explain(remove.failure, ['password', 'current_password']).fields.current_password : undefined} />
        <button type="submit" class="danger" disabled={remove.busy || !password}>
          Remove
        </button>
      </form>
      <FailureNote failure={remove.failure} fields={['password', 'current_password']} />
    </li>
  );
}
