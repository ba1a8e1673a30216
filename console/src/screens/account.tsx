import { useState } from 'preact/hooks';
import { call } from '../api/client';
import { explain } from '../logic/problems';
import { FailureNote, Field, LoadFailure, Loading, LocalTime, Notice, Screen, useConsole } from '../ui/components';
import { ProofForm } from '../ui/proof-field';
import { useAction, useLoad, useNotice } from '../ui/use-load';
import { Passkeys } from './passkeys';
import { RecoveryCodes, TotpSetup } from './totp-setup';

const value = (event: Event) => (event.currentTarget as HTMLInputElement).value;

/** One's own account: who one is, the password, second factors. The only screen a member has. */
export function AccountScreen() {
  const { session } = useConsole();
  const state = session.current();
  const me = state.status === 'signed-in' ? state.me : null;
  return (
    <Screen title="My account">
      {me && (
        <dl class="facts">
          <dt>Name</dt>
          <dd>{me.name ?? '—'}</dd>
          <dt>Username</dt>
          <dd>{me.username ?? '—'}</dd>
          <dt>E-mail</dt>
          <dd>{me.email}</dd>
          <dt>Role</dt>
          <dd>
            {me.role.name} <span class="sub">({me.role.permissions.length === 0 ? 'no permissions' : me.role.permissions.join(', ')})</span>
          </dd>
          <dt>Joined</dt>
          <dd>
            <LocalTime iso={me.joined_date} />
          </dd>
        </dl>
      )}
      <PasswordForm />
      <SecondFactors />
      <Passkeys />
    </Screen>
  );
}

function PasswordForm() {
  const { api, session } = useConsole();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [notice, setNotice] = useNotice();
  const change = useAction();
  const fields = change.failure ? explain(change.failure, ['current_password', 'new_password']).fields : {};
  return (
    <form
      class="card"
      aria-labelledby="password-title"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        void change.run(async () => {
          const tokens = await call(api.POST('/v1/me/password', { body: { current_password: current, new_password: next } }));
          // Every other session ended; this one continues in a new cookie.
          await session.handOver(tokens.refreshToken);
          setCurrent('');
          setNext('');
          setNotice('Password changed. Every other session of yours has been signed out.');
        });
      }}
    >
      <h2 id="password-title">Change password</h2>
      <Field id="current_password" label="Current password" type="password" autoComplete="current-password" value={current} onInput={(e) => setCurrent(value(e))} error={fields.current_password} />
      <Field id="new_password" label="New password" type="password" autoComplete="new-password" hint="12 to 128 characters; not a common password." value={next} onInput={(e) => setNext(value(e))} error={fields.new_password} />
      <FailureNote failure={change.failure} fields={['current_password', 'new_password']} />
      <Notice text={notice} />
      <button type="submit" disabled={change.busy}>
        Change password
      </button>
    </form>
  );
}

function SecondFactors() {
  const { api } = useConsole();
  const factors = useLoad(() => call(api.GET('/v1/me/mfa')), 'factors');
  const [codes, setCodes] = useState<string[] | null>(null);
  const [password, setPassword] = useState('');
  const [notice, setNotice] = useNotice();
  const action = useAction();
  const regenerate = useAction();
  const totp = factors.data?.factors.find((factor) => factor.type === 'totp' && factor.confirmed);
  return (
    <section class="card" aria-labelledby="mfa-title">
      <h2 id="mfa-title">Second factor</h2>
      <Notice text={notice} />
      {codes && <RecoveryCodes codes={codes} onDone={() => setCodes(null)} />}
      {factors.state === 'failed' && <LoadFailure failure={factors.failure} onRetry={factors.reload} />}
      {!factors.data && factors.state === 'loading' && <Loading what="your second factors" />}
      {factors.data && !totp && !codes && (
        <TotpSetup
          onEnrolled={(recoveryCodes) => {
            setCodes(recoveryCodes);
            factors.reload();
          }}
        />
      )}
      {factors.data && totp && (
        <div>
          <p>
            Authenticator app set up on <LocalTime iso={totp.confirmed_date ?? totp.created_date} />
            {totp.last_used_date ? <>, a code of it last accepted about <LocalTime iso={totp.last_used_date} /></> : null}. Recovery codes left: {factors.data.recovery_codes_remaining}.
          </p>
          <ProofForm
            id="recovery-codes-proof"
            purpose="make new recovery codes"
            hasApp
            submit="New recovery codes"
            buttonClass="secondary"
            busy={regenerate.busy}
            failure={regenerate.failure}
            onProof={(proof) =>
              regenerate.run(async () => {
                const fresh = await call(api.POST('/v1/me/mfa/recovery-codes', { body: proof }));
                setCodes(fresh.recovery_codes);
                factors.reload();
              })
            }
          />
          <form
            class="inline"
            onSubmit={(event) => {
              event.preventDefault();
              void action.run(async () => {
                await call(api.DELETE('/v1/me/mfa/totp', { body: { password } }));
                setPassword('');
                // Passkeys, when there are any, stay the second factor.
                const passkeysLeft = factors.data?.factors.some((factor) => factor.type === 'webauthn') ?? false;
                setNotice(
                  passkeysLeft
                    ? 'The authenticator app is removed: you sign in with your password and a passkey.'
                    : 'The authenticator app is removed: you sign in with your password alone.',
                );
                factors.reload();
              });
            }}
          >
            <Field id="remove-totp-password" label="Your password, to remove the app" type="password" autoComplete="current-password" value={password} onInput={(e) => setPassword(value(e))} error={action.failure ? explain(action.failure, ['password']).fields.password : undefined} />
            <button type="submit" class="danger" disabled={action.busy || !password}>
              Remove the authenticator app
            </button>
          </form>
          <FailureNote failure={action.failure} fields={['password']} />
        </div>
      )}
    </section>
  );
}
