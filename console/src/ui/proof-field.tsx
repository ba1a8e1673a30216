import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { type FactorProof, factorProof, PROOF_FIELDS, proofError } from '../logic/factor-proof';
import type { Failure } from '../logic/problems';
import { FailureNote, Field } from './components';

/**
 * A form that asks for the password (or, with an authenticator app, its current code) before a second factor is
 * added or new recovery codes are made, then sends the proof: an access token alone changes no factor. A refusal is
 * said at the field; the field empties once the action succeeded. `children`: the form's other fields, before it.
 */
export function ProofForm(props: {
  id: string;
  purpose: string;
  hasApp: boolean;
  submit: string;
  buttonClass?: string;
  busy: boolean;
  failure: Failure | null;
  onProof(proof: FactorProof): Promise<boolean>;
  children?: ComponentChildren;
}) {
  const [entered, setEntered] = useState('');
  return (
    <>
      <form
        class="inline"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          void props.onProof(factorProof(entered, props.hasApp)).then((done) => done && setEntered(''));
        }}
      >
        {props.children}
        <Field
          id={props.id}
          label={props.hasApp ? `Your password or the app’s current code, to ${props.purpose}` : `Your password, to ${props.purpose}`}
          type="password"
          autoComplete="current-password"
          value={entered}
          onInput={(event) => setEntered((event.currentTarget as HTMLInputElement).value)}
          error={proofError(props.failure)}
        />
        <button type="submit" {...(props.buttonClass ? { class: props.buttonClass } : {})} disabled={props.busy || !entered}>
          {props.submit}
        </button>
      </form>
      <FailureNote failure={props.failure} fields={PROOF_FIELDS} />
    </>
  );
}
