import type { Problem } from '../problem';

export const FORM_FIELDS = ['name', 'username', 'password'] as const;
export type FormField = (typeof FORM_FIELDS)[number];

/** Each input's label: the page shows it, and a field's problem reads "<label> <message>", as the script writes it. */
export const FIELD_LABELS: Record<FormField, string> = { name: 'Full name', username: 'Username', password: 'Password' };

/** Problems the API reports by code that belong to a field of the form (the script has the same table). */
const FIELD_OF_CODE: Record<string, { field: FormField; message: string }> = {
  USERNAME_TAKEN: { field: 'username', message: 'is already taken: choose another one' },
};

/** A refused post as the form shows it: the first problem of each field at that field, the rest in the status line. */
export interface FormProblems {
  code: string;
  fieldErrors: Partial<Record<FormField, string>>;
  /** What no field says; empty when every problem is at a field. */
  summary: string;
}

const isField = (name: string): name is FormField => (FORM_FIELDS as readonly string[]).includes(name);

/**
 * The server's twin of the script's `showProblem`: the same problems at the same places in the same
 * words, so a browser with JavaScript and one without show a refusal alike.
 */
export function formProblems(problem: Problem): FormProblems {
  const problems = [...(problem.errors ?? [])];
  const byCode = FIELD_OF_CODE[problem.code];
  if (byCode) problems.push(byCode);
  const fieldErrors: Partial<Record<FormField, string>> = {};
  const elsewhere: string[] = [];
  for (const { field, message } of problems) {
    if (!isField(field)) elsewhere.push(`${field} ${message}`);
    else fieldErrors[field] ??= `${FIELD_LABELS[field]} ${message}`;
  }
  const anyAtField = Object.keys(fieldErrors).length > 0;
  return { code: problem.code, fieldErrors, summary: anyAtField ? elsewhere.join('; ') : problem.detail || 'Something went wrong.' };
}
