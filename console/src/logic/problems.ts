/**
 * Every failure the console meets, in words: an API problem (RFC 9457, with our stable `code`), a network that
 * is gone, or an answer that is not a problem at all. What a person reads next to the field or action that
 * failed, whether to offer a retry, and whether to go back to sign-in. No DOM here: unit-tested.
 */
export interface FieldProblem {
  field: string;
  message: string;
}

export interface Problem {
  status: number;
  code: string;
  title?: string;
  detail?: string;
  errors?: FieldProblem[];
}

export type Failure = { kind: 'problem'; problem: Problem; retryAfterSeconds?: number } | { kind: 'network' };

export interface Explained {
  /** What failed, for the action's status line; empty when every word of it is at a field. */
  message: string;
  /** By field name (the API's): the first problem of each field. */
  fields: Record<string, string>;
  /** The failure may pass by itself (503, 429, a lost network): offer to try again. */
  retry: boolean;
  /** The session is gone (401 on an authenticated call): back to sign-in. */
  signIn: boolean;
}

/**
 * Someone changed the record since it was read (409 *_CHANGED_CONCURRENTLY, the answer to a stale If-Match): the
 * screen must read it again, or every retry sends the same old version and is refused the same way.
 */
export function isConflict(failure: Failure): boolean {
  return failure.kind === 'problem' && failure.problem.status === 409 && failure.problem.code.endsWith('_CHANGED_CONCURRENTLY');
}

const WORDS: Record<string, string> = {
  INVALID_CREDENTIALS: 'The username or password is wrong, or the account cannot sign in (locked for a while after many failures, or not joined yet).',
  INVALID_MFA_CODE: 'That code is not right. Codes change every 30 seconds and each works once: use the current one.',
  INVALID_MFA_TOKEN: 'The sign-in took too long. Enter the username and password again.',
  INVALID_REFRESH_TOKEN: 'Your session has ended. Sign in again.',
  UNAUTHENTICATED: 'Your session has ended. Sign in again.',
  MFA_ENROLLMENT_REQUIRED: 'Your role requires a second factor: set one up on your account first.',
  PERMISSION_DENIED: 'Your role does not allow this.',
  CROSS_SITE_REQUEST: 'The console’s session must be opened from this console’s own address.',
  WRONG_CURRENT_PASSWORD: 'The password is not right, or too many tries have locked the account for a while.',
  EMAIL_TAKEN: 'Someone already has this e-mail address (perhaps an invitation not yet accepted).',
  USERNAME_TAKEN: 'This username is taken.',
  USER_NOT_FOUND: 'This user no longer exists.',
  NOT_A_USER: 'This is not a user’s account.',
  USER_ALREADY_JOINED: 'This person has joined already: the invitation is used.',
  USER_DEACTIVATED: 'This user is deactivated: reactivate them first.',
  USER_CHANGED_CONCURRENTLY: 'Someone changed this user meanwhile. The page shows the latest now; try again.',
  LAST_ACTIVE_ADMIN: 'This is the last active admin: there must always be one.',
  OWN_ACCOUNT: 'You cannot do this to your own account here.',
  INVITATION_NOT_FOUND: 'There is no pending invitation for this user.',
  ROLE_NOT_FOUND: 'No role has this name.',
  NO_SUCH_ROLE: 'This role no longer exists.',
  ROLE_NAME_TAKEN: 'Another role has this name.',
  ROLE_IN_USE: 'Users or service accounts still hold this role. Give them another role first, then delete it.',
  BUILT_IN_ROLE: 'The built-in roles (admin and member) cannot be renamed or deleted, and admin keeps every permission.',
  ROLE_CHANGED_CONCURRENTLY: 'Someone changed this role meanwhile. The page shows the latest now; try again.',
  PERMISSION_NOT_FOUND: 'One of these permissions does not exist.',
  NO_SUCH_SERVICE_ACCOUNT: 'This service account no longer exists.',
  NO_SUCH_SERVICE_ACCOUNT_SECRET: 'This secret no longer exists.',
  SERVICE_ACCOUNT_NAME_TAKEN: 'Another service account has this name.',
  SERVICE_ACCOUNT_CHANGED_CONCURRENTLY: 'Someone changed this service account meanwhile. The page shows the latest now; try again.',
  LAST_CREDENTIAL: 'This is its last credential: add another secret or key first.',
  TOO_MANY_SECRETS: 'It has as many secrets as allowed: delete an old one first.',
  MFA_ALREADY_ENABLED: 'An authenticator app is set up already.',
  MFA_ENROLLMENT_NOT_STARTED: 'Start the set-up again: it was not started or has been replaced.',
  MFA_NOT_ENABLED: 'No second factor is set up.',
  PAYLOAD_TOO_LARGE: 'What was sent is too large.',
  TOO_MANY_REQUESTS: 'Too many requests for now.',
  SERVICE_UNAVAILABLE: 'The service is unavailable for a moment.',
  NOT_FOUND: 'Not found.',
};

/** Field names as a form labels them; an unlisted field keeps the API's name. */
const LABELS: Record<string, string> = {
  email: 'E-mail',
  name: 'Name',
  username: 'Username',
  password: 'Password',
  current_password: 'Current password',
  new_password: 'New password',
  role: 'Role',
  code: 'Code',
  recovery_code: 'Recovery code',
  permissions: 'Permissions',
  description: 'Description',
  keys: 'Keys',
  q: 'Search',
};

const sentence = (text: string) => (text.endsWith('.') ? text : `${text}.`);

/** The first problem of each field, in words: "Password is too short". */
export function fieldMessages(errors: readonly FieldProblem[] | undefined): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const { field, message } of errors ?? []) {
    const name = field.replace(/^body\./, '');
    fields[name] ??= sentence(`${LABELS[name] ?? name} ${message}`);
  }
  return fields;
}

/**
 * `shownFields`: the fields the form has, whose problems it shows next to them; a problem of any other field
 * goes into the message, so nothing is lost.
 */
export function explain(failure: Failure, shownFields: readonly string[] = []): Explained {
  if (failure.kind === 'network') {
    return { message: 'The service cannot be reached. Check the connection, then try again.', fields: {}, retry: true, signIn: false };
  }
  const { problem } = failure;
  const all = fieldMessages(problem.errors);
  const fields: Record<string, string> = {};
  const elsewhere: string[] = [];
  for (const [field, words] of Object.entries(all)) {
    if (shownFields.includes(field)) fields[field] = words;
    else elsewhere.push(words);
  }
  const retry = problem.status === 503 || problem.status === 429 || problem.status === 408;
  const signIn = problem.code === 'UNAUTHENTICATED' || problem.code === 'INVALID_REFRESH_TOKEN';
  let message = WORDS[problem.code] ?? (problem.detail ? sentence(problem.detail) : `The request failed (${problem.status}).`);
  if (problem.code === 'USER_CHANGED_CONCURRENTLY' && problem.detail) message = WORDS[problem.code]!;
  if (retry) {
    const wait = failure.retryAfterSeconds;
    message = `${message} ${wait ? `Try again in ${wait} second${wait === 1 ? '' : 's'}.` : 'Try again shortly.'}`;
  }
  if (problem.code === 'VALIDATION_FAILED' || problem.code === 'MALFORMED_JSON') {
    message = elsewhere.length > 0 ? elsewhere.join(' ') : Object.keys(fields).length > 0 ? '' : sentence(problem.detail ?? 'The request is not valid');
  } else if (elsewhere.length > 0) {
    message = `${message} ${elsewhere.join(' ')}`;
  }
  // A code the table knows at a field (USERNAME_TAKEN at the username): said once, there.
  const at = FIELD_OF_CODE[problem.code];
  if (at && shownFields.includes(at)) {
    fields[at] ??= message;
    message = '';
  }
  return { message, fields, retry, signIn };
}

/** Codes that are about one field, shown next to it when the form has it. */
const FIELD_OF_CODE: Record<string, string> = {
  EMAIL_TAKEN: 'email',
  USERNAME_TAKEN: 'username',
  WRONG_CURRENT_PASSWORD: 'current_password',
  INVALID_MFA_CODE: 'code',
  ROLE_NAME_TAKEN: 'name',
  SERVICE_ACCOUNT_NAME_TAKEN: 'name',
  ROLE_NOT_FOUND: 'role',
};

/** Reads an answer's body as a problem when it is one; otherwise a problem made of its status. */
export function asProblem(status: number, body: unknown): Problem {
  if (body && typeof body === 'object' && typeof (body as Problem).code === 'string') {
    const given = body as Problem;
    return { ...given, status: typeof given.status === 'number' ? given.status : status };
  }
  return { status, code: status === 503 ? 'SERVICE_UNAVAILABLE' : status === 401 ? 'UNAUTHENTICATED' : 'UNEXPECTED', detail: `The service answered ${status}` };
}
