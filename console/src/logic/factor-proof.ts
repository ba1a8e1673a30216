import { explain, type Failure } from './problems';

/**
 * What the API takes to add or remove one's own second factor, or to make new recovery codes: the password, or
 * (with an authenticator app) a current code of it. A password is never six digits alone (12 characters at
 * least), nor `123 456`, so one field takes either. No DOM here: unit-tested.
 */
export type FactorProof = { password: string } | { code: string };

export function factorProof(entered: string, hasApp: boolean): FactorProof {
  const code = entered.trim();
  // As the apps show it too, three digits, a space and three: the API takes that form.
  return hasApp && /^[0-9]{3} ?[0-9]{3}$/.test(code) ? { code } : { password: entered };
}

/** The fields a proof's refusal may name: its own two, and the field WRONG_CURRENT_PASSWORD is said at. */
export const PROOF_FIELDS = ['password', 'code', 'current_password'] as const;

/** A refused proof in words, for its field: a wrong password or code, or a malformed one. */
export function proofError(failure: Failure | null): string | undefined {
  if (!failure) return undefined;
  const { fields } = explain(failure, PROOF_FIELDS);
  return fields.current_password ?? fields.code ?? fields.password;
}
