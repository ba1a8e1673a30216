import { useEffect, useRef, useState } from 'preact/hooks';
import { failureOf } from '../api/client';
import { explain, type Failure } from '../logic/problems';
import type { MfaStep, Session } from '../session/session';
import { passkeyFailure, passkeysSupported, usePasskey } from '../session/webauthn';
import { FailureNote, Field } from '../ui/components';

const value = (event: Event) => (event.currentTarget as HTMLInputElement).value;

/** The seed's sign-in, then the second factor when the answer is MFA_REQUIRED. */
export function SignInScreen(props: { session: Session; notice?: string | undefined }) {
  const [step, setStep] = useState<MfaStep | null>(null);
  useEffect(() => {
    document.title = 'Sign in · Access control console';
  }, []);
  return (
    <main id="main" class="sign-in">
      <h1>Access control console</h1>
      {props.notice && !step && (
        <p class="notice" role="status">
          {props.notice}
        </p>
      )}
      {step ? <SecondFactor session={props.session} step={step} onRestart={() => setStep(null)} /> : <Password session={props.session} onMfa={setStep} />}
    </main>
  );
}

function Password(props: { session: Session; onMfa(step: MfaStep): void }) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<Failure | null>(null);
  const fields = explain(failure ?? { kind: 'network' }, ['username', 'password']).fields;
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setFailure(null);
    try {
      const step = await props.session.signIn(username, password);
      if (step) props.onMfa(step);
    } catch (error) {
      setFailure(failureOf(error));
      setPassword('');
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} noValidate aria-labelledby="sign-in-title" class="card">
      <h2 id="sign-in-title">Sign in</h2>
      <Field id="username" label="Username" autoComplete="username" required value={username} onInput={(e) => setUsername(value(e))} error={failure ? fields.username : undefined} />
      <Field id="password" label="Password" type="password" autoComplete="current-password" required value={password} onInput={(e) => setPassword(value(e))} error={failure ? fields.password : undefined} />
      <FailureNote failure={failure} fields={['username', 'password']} id="sign-in-failure" />
      <button type="submit" disabled={busy}>
        {busy ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  );
}

function SecondFactor(props: { session: Session; step: MfaStep; onRestart(): void }) {
  const canUseRecovery = props.step.methods.includes('recovery_code');
  const canUseApp = props.step.methods.includes('totp');
  const canUsePasskey = props.step.methods.includes('webauthn') && passkeysSupported();
  const [useRecovery, setUseRecovery] = useState(!canUseApp && !canUsePasskey && canUseRecovery);
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [refusal, setRefusal] = useState<string | null>(null);
  const [options, setOptions] = useState<unknown>(props.step.webauthnOptions ?? null);
  const input = useRef<HTMLDivElement>(null);
  useEffect(() => input.current?.querySelector('input')?.focus(), [useRecovery]);
  const field = useRecovery ? 'recovery_code' : 'code';
  // INVALID_MFA_CODE is the code's, whichever kind was typed: shown at the field.
  const explained = failure ? explain(failure, ['code', 'recovery_code']) : null;
  // At sign-in INVALID_MFA_CODE also answers a wrong password before it (the API does not say which): both are named.
  const wrongCode = failure?.kind === 'problem' && failure.problem.code === 'INVALID_MFA_CODE';
  const codeError = wrongCode
    ? 'That code is not right, or the password before it was not. Codes change every 30 seconds and each works once; start again if unsure of the password.'
    : explained ? (explained.fields[field] ?? explained.fields.code) : undefined;
  const attempt = async (work: () => Promise<unknown>) => {
    setBusy(true);
    setFailure(null);
    setRefusal(null);
    try {
      await work();
    } catch (error) {
      const refused = passkeyFailure(error);
      if (refused) return setRefusal(refused);
      const why = failureOf(error);
      if (why.kind === 'problem' && why.problem.code === 'INVALID_MFA_TOKEN') props.onRestart();
      setFailure(why);
      setCode('');
    } finally {
      setBusy(false);
    }
  };
  const submit = (event: Event) => {
    event.preventDefault();
    void attempt(() => props.session.completeMfa(props.step, useRecovery ? { recovery_code: code.trim() } : { code: code.trim() }));
  };
  const withPasskey = () =>
    void attempt(async () => {
      // The password step's options answer once; a second try asks for new ones.
      const current = options ?? (await props.session.passkeyOptions(props.step));
      setOptions(null);
      await props.session.completeMfa(props.step, { webauthn: await usePasskey(current) });
    });
  return (
    <form onSubmit={submit} noValidate aria-labelledby="mfa-title" class="card">
      <h2 id="mfa-title">Second factor</h2>
      {canUsePasskey && (
        <p>
          <button type="button" disabled={busy} onClick={withPasskey}>
            Use a passkey
          </button>
        </p>
      )}
      {(canUseApp || canUseRecovery) && (
        <div ref={input}>
          {useRecovery ? (
            <Field id="recovery_code" label="Recovery code" hint="One of the codes you saved when you set up the second factor; each works once." autoComplete="off" maxLength={32} value={code} onInput={(e) => setCode(value(e))} error={codeError} />
          ) : canUseApp ? (
            <Field id="code" label="Code from your authenticator app" hint="Six digits." inputMode="numeric" autoComplete="one-time-code" maxLength={7} value={code} onInput={(e) => setCode(value(e))} error={codeError} />
          ) : null}
        </div>
      )}
      {refusal && (
        <p class="failure" role="alert">
          {refusal}
        </p>
      )}
      {failure && (!codeError || !(useRecovery || canUseApp)) && <FailureNote failure={failure} fields={useRecovery || canUseApp ? [field] : []} />}
      {(useRecovery || canUseApp) && (
        <button type="submit" disabled={busy}>
          {busy ? 'Checking…' : 'Continue'}
        </button>
      )}
      {canUseRecovery && canUseApp && (
        <button type="button" class="link" onClick={() => (setUseRecovery(!useRecovery), setCode(''), setFailure(null))}>
          {useRecovery ? 'Use the authenticator app instead' : 'Use a recovery code instead'}
        </button>
      )}
      {canUseRecovery && !canUseApp && !useRecovery && (
        <button type="button" class="link" onClick={() => (setUseRecovery(true), setFailure(null))}>
          Use a recovery code instead
        </button>
      )}
      <button type="button" class="link" onClick={props.onRestart}>
        Start again
      </button>
    </form>
  );
}
