import { useState } from 'preact/hooks';
import { call } from '../api/client';
import { explain } from '../logic/problems';
import { FailureNote, Field, useConsole } from '../ui/components';
import { ProofForm } from '../ui/proof-field';
import { useAction } from '../ui/use-load';

/** Ten single-use codes, shown this once. */
export function RecoveryCodes(props: { codes: string[]; onDone?: () => void; doneLabel?: string }) {
  return (
    <div class="card secret" role="region" aria-labelledby="codes-title">
      <h3 id="codes-title">Recovery codes</h3>
      <p>Save these codes somewhere safe now: they are shown only this once. Each signs you in once if you lose the app.</p>
      <ul class="codes">
        {props.codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ul>
      {props.onDone && (
        <button type="button" onClick={props.onDone}>
          {props.doneLabel ?? 'I have saved them'}
        </button>
      )}
    </div>
  );
}

/** Setting up an authenticator app, on one's password: the QR code (and the secret to type), then a current code to confirm it. */
export function TotpSetup(props: { onEnrolled(codes: string[]): void }) {
  const { api } = useConsole();
  const [enrollment, setEnrollment] = useState<{ secret: string; qr: string } | null>(null);
  const [code, setCode] = useState('');
  const start = useAction();
  const confirm = useAction();
  const codeError = confirm.failure
    ? (explain(confirm.failure, ['code']).fields.code ?? (confirm.failure.kind === 'problem' && confirm.failure.problem.code === 'INVALID_MFA_CODE' ? explain(confirm.failure).message : undefined))
    : undefined;
  if (!enrollment) {
    return (
      <ProofForm
        id="totp-password"
        purpose="set up an authenticator app"
        hasApp={false}
        submit="Set up an authenticator app"
        busy={start.busy}
        failure={start.failure}
        onProof={(proof) =>
          start.run(async () => {
            const started = await call(api.POST('/v1/me/mfa/totp', { body: proof }));
            setEnrollment({ secret: started.secret, qr: started.qr_code });
          })
        }
      />
    );
  }
  return (
    <form
      class="card"
      aria-labelledby="totp-title"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        void confirm.run(async () => {
          const done = await call(api.POST('/v1/me/mfa/totp/confirm', { body: { code: code.trim() } }));
          props.onEnrolled(done.recovery_codes);
        });
      }}
    >
      <h3 id="totp-title">Scan this code with your authenticator app</h3>
      <img class="qr" src={enrollment.qr} width={200} height={200} alt="QR code of the authenticator set-up; the secret below says the same" />
      <p>
        Or type this secret into the app: <code id="totp-secret">{enrollment.secret}</code>
      </p>
      <Field id="totp-code" label="The app’s current six-digit code" inputMode="numeric" autoComplete="one-time-code" maxLength={7} value={code} onInput={(e) => setCode((e.currentTarget as HTMLInputElement).value)} error={codeError} />
      {!codeError && <FailureNote failure={confirm.failure} fields={['code']} />}
      <button type="submit" disabled={confirm.busy}>
        Confirm
      </button>
    </form>
  );
}
