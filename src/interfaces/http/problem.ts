import { type FieldProblem, ValidationError } from '../../domain/shared/domain-error';

/** RFC 9457 problem details, with our stable `code`. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  errors?: FieldProblem[];
}

/** One table from error code to HTTP status and title. Codes are the public contract. */
export const PROBLEMS: Record<string, { status: number; title: string }> = {
  VALIDATION_FAILED: { status: 400, title: 'The request is not valid' },
  MALFORMED_JSON: { status: 400, title: 'The body is not valid JSON' },
  ROLE_NOT_FOUND: { status: 400, title: 'No such role' },
  UNAUTHENTICATED: { status: 401, title: 'Authentication required' },
  INVALID_CREDENTIALS: { status: 401, title: 'Invalid credentials' },
  // One answer for every refresh token that cannot be exchanged (unknown, expired, used, revoked).
  INVALID_REFRESH_TOKEN: { status: 401, title: 'Invalid refresh token' },
  // A field of the request is wrong, not the bearer token: a 401 would tell clients to sign in again.
  WRONG_CURRENT_PASSWORD: { status: 400, title: 'Wrong current password' },
  // Second factors (#24): the right password of a user with a factor is not a session yet (docs/DECISIONS.md).
  MFA_REQUIRED: { status: 401, title: 'Second factor required' },
  INVALID_MFA_TOKEN: { status: 401, title: 'Invalid mfa_token' },
  // A field is wrong (the code), not the token: as WRONG_CURRENT_PASSWORD, a 400.
  INVALID_MFA_CODE: { status: 400, title: 'Invalid code' },
  MFA_ALREADY_ENABLED: { status: 409, title: 'Second factor enrolled already' },
  MFA_ENROLLMENT_NOT_STARTED: { status: 409, title: 'No enrollment waiting' },
  MFA_NOT_ENABLED: { status: 409, title: 'No second factor' },
  SECOND_FACTOR_CLOSED: { status: 409, title: 'Second step closed until the password is reset' },
  PASSKEY_NOT_FOUND: { status: 404, title: 'No such passkey' },
  PASSKEY_LIMIT_REACHED: { status: 409, title: 'Too many passkeys' },
  INVALID_WEBAUTHN_RESPONSE: { status: 400, title: 'Passkey response not valid' },
  // An enrollment-only token (MFA_REQUIRED_PERMISSIONS) on any route but enrolling and /v1/me.
  MFA_ENROLLMENT_REQUIRED: { status: 403, title: 'Enroll a second factor first' },
  PERMISSION_DENIED: { status: 403, title: 'Permission denied' },
  // The console's session (#25) from another origin: the CSRF defence (docs/DECISIONS.md, "The admin console").
  CROSS_SITE_REQUEST: { status: 403, title: 'Cross-site request refused' },
  NOT_FOUND: { status: 404, title: 'Not found' },
  USER_NOT_FOUND: { status: 404, title: 'No such user' },
  INVITATION_NOT_FOUND: { status: 404, title: 'No such invitation' },
  // Password reset (#10): as invitations, unknown 404, used or expired 410.
  PASSWORD_RESET_NOT_FOUND: { status: 404, title: 'No such password-reset link' },
  PASSWORD_RESET_EXPIRED: { status: 410, title: 'Password-reset link expired' },
  PASSWORD_RESET_USED: { status: 410, title: 'Password-reset link used' },
  METHOD_NOT_ALLOWED: { status: 405, title: 'Method not allowed' },
  EMAIL_TAKEN: { status: 409, title: 'E-mail already in use' },
  USERNAME_TAKEN: { status: 409, title: 'Username already taken' },
  USER_ALREADY_JOINED: { status: 409, title: 'User has joined already' },
  USER_DEACTIVATED: { status: 409, title: 'User is deactivated' },
  // The loser of two concurrent changes of one user (optimistic version): read it again, then retry.
  USER_CHANGED_CONCURRENTLY: { status: 409, title: 'User changed meanwhile' },
  LAST_ACTIVE_ADMIN: { status: 409, title: 'The last active admin stays' },
  OWN_ACCOUNT: { status: 409, title: 'Not on your own account' },
  // Roles (#11). NO_SUCH_ROLE is a role addressed by its path id; ROLE_NOT_FOUND (400) a role named in a body or query.
  NO_SUCH_ROLE: { status: 404, title: 'No such role' },
  PERMISSION_NOT_FOUND: { status: 400, title: 'No such permission' },
  ROLE_NAME_TAKEN: { status: 409, title: 'Role name already taken' },
  ROLE_IN_USE: { status: 409, title: 'Role is held by users' },
  BUILT_IN_ROLE: { status: 409, title: 'Built-in role' },
  ROLE_CHANGED_CONCURRENTLY: { status: 409, title: 'Role changed meanwhile' },
  // Service accounts (#21): addressed by path id (404); a change that would leave an account without any credential is a 409.
  NO_SUCH_SERVICE_ACCOUNT: { status: 404, title: 'No such service account' },
  NO_SUCH_SERVICE_ACCOUNT_SECRET: { status: 404, title: 'No such secret' },
  SERVICE_ACCOUNT_NAME_TAKEN: { status: 409, title: 'Service account name already taken' },
  SERVICE_ACCOUNT_CHANGED_CONCURRENTLY: { status: 409, title: 'Service account changed meanwhile' },
  LAST_CREDENTIAL: { status: 409, title: 'The last credential stays' },
  TOO_MANY_SECRETS: { status: 409, title: 'Too many secrets' },
  // Service tokens (#21): a scope the account's role does not hold (answered invalid_scope at the token endpoint);
  // a service token on /v1/me, which is a user's own account.
  INVALID_SCOPE: { status: 400, title: 'Invalid scope' },
  INVALID_TARGET: { status: 400, title: 'Invalid target' },
  NOT_A_USER: { status: 404, title: 'Not a user' },
  INVITATION_EXPIRED: { status: 410, title: 'Invitation expired' },
  // Gone like an expired one, and the page at the link says 410 too.
  INVITATION_USED: { status: 410, title: 'Invitation already used' },
  PAYLOAD_TOO_LARGE: { status: 413, title: 'Body too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'Unsupported media type' },
  // A `q` too broad to count within SEARCH_TIME_LIMIT: the request is valid, the server declines the work (docs/DECISIONS.md).
  SEARCH_TOO_BROAD: { status: 422, title: 'Search too broad' },
  TOO_MANY_REQUESTS: { status: 429, title: 'Too many requests' },
  REQUEST_TIMEOUT: { status: 408, title: 'Request timeout' },
  EXPECTATION_FAILED: { status: 417, title: 'Expectation failed' },
  HEADERS_TOO_LARGE: { status: 431, title: 'Request headers too large' },
  MALFORMED_REQUEST: { status: 400, title: 'The request could not be parsed' },
  INTERNAL: { status: 500, title: 'Internal error' },
  SERVICE_UNAVAILABLE: { status: 503, title: 'Service unavailable' },
};

export function problem(code: string, detail: string, extra: Partial<Problem> = {}): Problem {
  const known = PROBLEMS[code] ?? PROBLEMS.INTERNAL;
  return {
    type: `urn:problem:access-control:${code.toLowerCase().replace(/_/g, '-')}`,
    title: known.title,
    status: known.status,
    detail,
    code,
    ...extra,
  };
}

/** The longest path a detail shows; a longer one is cut, with an ellipsis. */
const SHOWN_PATH_MAX = 200;

/**
 * A request's path as an answer may show it: no query (it may carry a token: `/invitations/acceptx?token=…`), and at
 * most 200 characters (a 10 KB path was echoed whole).
 */
export function shownPath(url: string): string {
  const path = url.split('?')[0]!;
  return path.length > SHOWN_PATH_MAX ? `${path.slice(0, SHOWN_PATH_MAX)}…` : path;
}

/** The 404 of a path no route serves. */
export const noRoute = (request: { method: string; url: string }): Problem => problem('NOT_FOUND', `No route ${request.method} ${shownPath(request.url)}`);

/** An error raised by the HTTP edge itself (not a business rule), carrying its problem code. */
export class HttpProblemError extends Error {
  constructor(
    readonly code: keyof typeof PROBLEMS,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpProblemError';
  }
}

const CHALLENGE = 'Bearer realm="access-control"';

/** A 401 to a request that carried no bearer token (no Authorization, or another scheme): RFC 6750 §3.1's bare challenge, no error code. */
export const unauthenticated = (detail = 'A valid bearer token is required') =>
  new HttpProblemError('UNAUTHENTICATED', detail, { 'www-authenticate': CHALLENGE });

/** A 401 to a bearer token presented and refused (malformed, forged, expired, revoked, its subject gone): `error="invalid_token"`. */
export const invalidToken = (detail = 'A valid bearer token is required') =>
  new HttpProblemError('UNAUTHENTICATED', detail, { 'www-authenticate': `${CHALLENGE}, error="invalid_token"` });

/**
 * A 400 that RFC 6750 §3.1 names `invalid_request` (two Authorization headers, a token in the header and in the query):
 * VALIDATION_FAILED naming the field, with the challenge saying so, `error="invalid_request"`.
 */
export class InvalidBearerRequestError extends ValidationError {
  readonly headers = { 'www-authenticate': `${CHALLENGE}, error="invalid_request"` };

  constructor(field: string, message: string) {
    super([{ field, message }]);
  }
}

/**
 * The challenge of a 403 for a permission the token's holder lacks (RFC 6750 §3.1 `insufficient_scope`), naming the
 * permissions (as a service token's `scope` names them) that would have been enough.
 */
export const insufficientScope = (missing: readonly string[]): Record<string, string> => ({
  'www-authenticate': `${CHALLENGE}, error="insufficient_scope", scope="${missing.join(' ')}"`,
});
