import { useState } from 'preact/hooks';
import { passkeysSupported } from '../session/webauthn';
import { FailureNote, Screen, useConsole } from '../ui/components';
import { ProofForm } from '../ui/proof-field';
import { useAction } from '../ui/use-load';
import { useAddPasskey } from './passkeys';
import { RecoveryCodes, TotpSetup } from './totp-setup';

/** A role that requires a second factor signs in to this screen only, until one is set up (MFA_REQUIRED_PERMISSIONS). */
export function EnrollmentScreen() {
  const { session } = useConsole();
  const [codes, setCodes] = useState<string[] | null>(null);
  const proceed = useAction();
  const passkey = useAddPasskey((added) => setCodes(added.recovery_codes ?? []));
  return (
    <Screen title="Set up a second factor">
      <p>Your role requires a second factor. Set up an authenticator app or a passkey to continue; nothing else is available until then.</p>
      {codes ? (
        <RecoveryCodes
          codes={codes}
          doneLabel="I have saved them: continue"
          onDone={() => void proceed.run(async () => {
            // The session's next access token is a whole one.
            if (await session.renew()) await session.loadMe();
          })}
        />
      ) : (
        <>
          <h2>An authenticator app</h2>
          <TotpSetup onEnrolled={setCodes} />
          {passkeysSupported() && (
            <>
              <h2>Or a passkey</h2>
              <ProofForm
                id="passkey-password"
                purpose="add a passkey"
                hasApp={false}
                submit="Add a passkey"
                buttonClass="secondary"
                busy={passkey.add.busy}
                failure={passkey.add.failure}
                onProof={(proof) => passkey.addPasskey('', proof)}
              />
              {passkey.refusal && (
                <p class="failure" role="alert">
                  {passkey.refusal}
                </p>
              )}
            </>
          )}
        </>
      )}
      <FailureNote failure={proceed.failure} />
    </Screen>
  );
}
