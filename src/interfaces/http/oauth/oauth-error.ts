import { DomainError } from '../../../domain/shared/domain-error';
import { HttpProblemError } from '../problem';

/** RFC 6749 §5.2's error codes (and `temporarily_unavailable`, `server_error` for what is not the client's doing). */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  /** RFC 8707 §2: the `resource` asked for is one this server issues no token for. */
  | 'invalid_target'
  /** RFC 7009 §2.2.1: the revocation endpoint cannot revoke this kind of token. */
  | 'unsupported_token_type'
  | 'temporarily_unavailable'
  | 'server_error';

/** A refusal of the token endpoint, answered as RFC 6749 §5.2 says: `{error, error_description}`. */
export class OAuthError extends Error {
  /** The description in the characters §5.2 allows it (see `asErrorDescription`). */
  readonly description: string;

  constructor(
    readonly error: OAuthErrorCode,
    description: string,
    /** 400 unless RFC 6749 says otherwise (invalid_client with HTTP authentication: 401). */
    readonly status = 400,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
    this.description = asErrorDescription(description);
  }
}

/**
 * RFC 6749 §5.2: `error_description` "MUST NOT include characters outside the set %x20-21 / %x23-5B / %x5D-7E" (printable
 * ASCII but `"` and `\`). A message written for the rest of the API may hold a typographic apostrophe or quote (a domain
 * error's): those become `'`, a `\` a `/`, and anything else outside the set a `?`.
 */
export function asErrorDescription(text: string): string {
  return text
    .replace(/[\u2018\u2019\u201C\u201D"]/g, "'")
    .replace(/\\/g, '/')
    .replace(/[^\x20-\x21\x23-\x5B\x5D-\x7E]/g, '?');
}

/**
 * Domain error codes a grant can raise, by the OAuth error each is answered with. A grant added later
 * (client credentials) adds its codes here: one table, as the problem table is for the rest of the API.
 */
export const OAUTH_ERRORS: Record<string, OAuthErrorCode> = {
  INVALID_REFRESH_TOKEN: 'invalid_grant',
  INVALID_SCOPE: 'invalid_scope',
  INVALID_TARGET: 'invalid_target',
};

/** Problem codes the shared hooks raise before a handler runs (the throttle), by the answer's code. */
const FROM_PROBLEMS: Record<string, OAuthErrorCode> = {
  TOO_MANY_REQUESTS: 'invalid_request',
  SERVICE_UNAVAILABLE: 'temporarily_unavailable',
};

/**
 * Any error met on the token endpoint as the OAuth error to answer: never problem+json there. What the
 * shared problem mapping makes of it decides the class (a body Fastify could not read is a client error,
 * a database away is 503), so the two mappings cannot disagree on what is whose fault.
 */
export function toOAuthError(error: unknown, problem: { code: string; status: number; headers: Record<string, string> }): OAuthError {
  if (error instanceof OAuthError) return error;
  if (error instanceof DomainError && OAUTH_ERRORS[error.code]) return new OAuthError(OAUTH_ERRORS[error.code]!, error.message);
  if (error instanceof HttpProblemError && FROM_PROBLEMS[error.code]) {
    return new OAuthError(FROM_PROBLEMS[error.code]!, error.message, problem.status, error.headers);
  }
  if (problem.status === 503) {
    return new OAuthError('temporarily_unavailable', 'A backing service is unavailable; try again shortly', 503, problem.headers);
  }
  if (problem.status >= 500) return new OAuthError('server_error', 'An unexpected error occurred', 500);
  // The body could not be read (not a form, a bad Content-Length): the request is malformed. Over BODY_LIMIT it is
  // malformed too, but answered 413 as a body too large is on every route (PRODUCT.md's statuses).
  return new OAuthError('invalid_request', describe(problem.code), problem.status === 413 ? 413 : 400);
}

function describe(code: string): string {
  switch (code) {
    case 'UNSUPPORTED_MEDIA_TYPE':
      return 'The body must be application/x-www-form-urlencoded';
    case 'PAYLOAD_TOO_LARGE':
      return 'The body is larger than this endpoint reads';
    default:
      return 'The request could not be read';
  }
}
