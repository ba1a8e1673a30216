import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, ValidationError } from '../../domain/shared/domain-error';
import { PermissionDeniedError } from '../../domain/permissions/permission-denied.error';
import { HttpProblemError, insufficientScope, InvalidBearerRequestError, noRoute, PROBLEMS, type Problem, problem } from './problem';

/** Fastify's own error codes, by the problem code each answers with. */
export const FASTIFY_CODES: Record<string, string> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'VALIDATION_FAILED',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'MALFORMED_JSON',
  FST_ERR_CTP_INVALID_JSON_BODY: 'MALFORMED_JSON',
  FST_ERR_BAD_URL: 'VALIDATION_FAILED',
  // A path parameter longer than the router's maxParamLength (200); every id is far shorter.
  FST_ERR_MAX_PARAM_LENGTH: 'VALIDATION_FAILED',
  FST_ERR_ASYNC_CONSTRAINT: 'VALIDATION_FAILED',
};

/** What part of the request a VALIDATION_FAILED of fastify's names, by its error code (`request` otherwise). */
const FASTIFY_FIELDS: Record<string, string> = {
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'content-length',
  FST_ERR_BAD_URL: 'path',
  FST_ERR_MAX_PARAM_LENGTH: 'path',
  FST_ERR_ASYNC_CONSTRAINT: 'path',
};

/** A VALIDATION_FAILED always carries `errors[]` (README, "Errors"): one naming `field` when the error named none. */
function withField(code: string, field: string, message: string): { errors: { field: string; message: string }[] } | undefined {
  return code === 'VALIDATION_FAILED' ? { errors: [{ field, message }] } : undefined;
}

/**
 * A client error raised by Fastify or a plugin without a code of FASTIFY_CODES: the generic problem of
 * its status. Business codes (EMAIL_TAKEN for a 409, INVITATION_EXPIRED for a 410) are never guessed.
 */
const GENERIC_BY_STATUS: Record<number, string> = {
  400: 'VALIDATION_FAILED',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  408: 'REQUEST_TIMEOUT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'TOO_MANY_REQUESTS',
  431: 'HEADERS_TOO_LARGE',
};

/** Errors that mean the database is away, not that the request was wrong. */
const UNAVAILABLE = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT', 'ER_CON_COUNT_ERROR', 'ER_SERVER_SHUTDOWN', 'ER_LOCK_WAIT_TIMEOUT',
  'ER_LOCK_DEADLOCK', 'POOL_ENQUEUELIMIT', 'SQLITE_BUSY', 'SQLITE_LOCKED',
  // A role change or a search that waited for its turn (ConnectionTurns) as long as a statement may.
  'TURN_WAIT_TIMEOUT',
]);

export function toProblem(error: unknown): { problem: Problem; headers: Record<string, string> } {
  if (error instanceof ValidationError) {
    return { problem: problem(error.code, error.message, { errors: error.problems }), headers: error instanceof InvalidBearerRequestError ? error.headers : {} };
  }
  if (error instanceof PermissionDeniedError) {
    return { problem: problem(error.code, error.message), headers: insufficientScope(error.missing) };
  }
  if (error instanceof DomainError && PROBLEMS[error.code]) {
    return { problem: problem(error.code, error.message), headers: {} };
  }
  if (error instanceof HttpProblemError) {
    return { problem: problem(error.code, error.message), headers: error.headers };
  }
  const e = error as FastifyError & { driverError?: { code?: string }; validation?: ValidationIssue[] };
  if (e?.validation) {
    const errors = withoutBranches(e.validation).map((issue) => ({ field: fieldOf(e.validationContext, issue), message: messageOf(issue, e.validationContext) }));
    return { problem: problem('VALIDATION_FAILED', 'Some fields are invalid', { errors }), headers: {} };
  }
  const mapped = e?.code ? FASTIFY_CODES[e.code] : undefined;
  if (mapped) {
    const detail = e.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'A path parameter is longer than any id (at most 200 characters)' : publicMessage(e);
    return { problem: problem(mapped, detail, withField(mapped, FASTIFY_FIELDS[e.code] ?? 'request', detail)), headers: {} };
  }
  if (isUnavailable(e)) {
    return {
      problem: problem('SERVICE_UNAVAILABLE', 'A backing service is unavailable; try again shortly'),
      headers: { 'retry-after': '2' },
    };
  }
  if (typeof e?.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    // Code and status come from the table together: a status it has no generic code for is a plain 400.
    const code = GENERIC_BY_STATUS[e.statusCode] ?? 'VALIDATION_FAILED';
    return { problem: problem(code, publicMessage(e), withField(code, 'request', publicMessage(e))), headers: {} };
  }
  return { problem: problem('INTERNAL', 'An unexpected error occurred'), headers: {} };
}

interface ValidationIssue {
  keyword?: string;
  instancePath?: string;
  schemaPath?: string;
  message?: string;
  params?: { missingProperty?: string; additionalProperty?: string; pattern?: string; type?: string };
}

/** What a schema's pattern asks for, in words: a client is told that, not the regular expression. */
export const PATTERN_MEANINGS: Record<string, string> = {
  '^(\\*|"[1-9][0-9]{0,14}")$': 'must be one strong entity tag as `ETag` gives it ("3"), or *: weak tags (W/"3") and lists are refused',
  '^[0-9]{3} ?[0-9]{3}$': 'must be six digits (123456, or 123 456 as authenticator apps show it)',
  '^[A-Za-z0-9_-]+$': 'must be base64url: letters, digits, - and _',
  '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$': 'must be a user id (a UUID)',
  '^[\\x20-\\x7e]+$': 'must be printable ASCII',
  '^[\\x21-\\x7e]+$': 'must be printable ASCII without spaces',
  '^[a-z_.]+$': 'must be lowercase letters, _ and . (an action or its start, such as user. or auth.signin)',
};

/**
 * A body that matches none of a `oneOf`'s forms fails a rule of every form (`password` missing in one, `code` in the
 * other): only the `oneOf` itself is told, which says the body must hold exactly one of them.
 */
function withoutBranches(issues: ValidationIssue[]): ValidationIssue[] {
  const forms = issues.filter((issue) => issue.keyword === 'oneOf' && issue.schemaPath).map((issue) => `${issue.schemaPath}/`);
  return forms.length === 0 ? issues : issues.filter((issue) => !forms.some((form) => issue.schemaPath?.startsWith(form)));
}

function fieldOf(context: string | undefined, issue: ValidationIssue): string {
  const base = (issue.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
  const leaf = issue.params?.missingProperty ?? issue.params?.additionalProperty;
  const path = [base, leaf].filter(Boolean).join('.');
  return path || context || 'body';
}

function messageOf(issue: ValidationIssue, context: string | undefined): string {
  if (issue.keyword === 'additionalProperties') return 'is not a field of this request';
  // Every value in a query string is text: only a parameter given twice (an array) is not a string.
  if (context === 'querystring' && issue.keyword === 'type' && issue.params?.type === 'string') return 'is given more than once';
  if (issue.keyword === 'oneOf') return 'must hold exactly one of the forms this request takes (see its schema at /docs)';
  const meaning = issue.keyword === 'pattern' ? PATTERN_MEANINGS[issue.params?.pattern ?? ''] : undefined;
  if (meaning) return meaning;
  return issue.message ?? 'is invalid';
}

function isUnavailable(e: { code?: string; driverError?: { code?: string }; name?: string; message?: string }): boolean {
  const code = e?.driverError?.code ?? e?.code;
  if (code && UNAVAILABLE.has(code)) return true;
  // TypeORM before initialization, or after the pool was closed.
  return e?.name === 'CannotExecuteNotConnectedError' || /Pool is closed|connection is in closed state/i.test(e?.message ?? '');
}

/** Fastify's own messages for client errors are safe to show; anything else is not echoed. */
function publicMessage(e: { message?: string }): string {
  const message = e?.message ?? '';
  return message.length > 0 && message.length < 300 ? message : 'The request could not be processed';
}

export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    // A 403 none of ours raised is a static route refusing a path out of its folder (/docs/static/../x): a path that
    // serves nothing, answered as every other one (PERMISSION_DENIED is a missing permission's).
    if (isStaticRefusal(error)) return sendProblem(reply, noRoute(request));
    if (isClientAbort(error, request)) {
      // The client left before its request was whole: nothing of ours failed, and anyone can make one. Not an error
      // line (alerts count those), no stack; the answer, which nobody reads, and the metrics say 400.
      request.log.info({ code: 'CLIENT_ABORTED' }, 'the client closed the connection before its request was whole');
      return sendProblem(reply, problem('MALFORMED_REQUEST', 'The request was not sent whole'));
    }
    const { problem: body, headers } = toProblem(error);
    if (body.status >= 500) {
      request.log.error({ err: error }, 'request failed');
    } else if (body.status !== 401 && body.status !== 403 && body.status !== 404) {
      request.log.info({ code: body.code, status: body.status }, 'request refused');
    }
    // No request id in the body (it is in the x-request-id header): equal failures give byte-identical bodies.
    return sendProblem(reply.headers(headers), body);
  });
}

/** A reset of the client's own connection while its request was read (Node's `aborted`), not a backing service's. */
function isClientAbort(error: unknown, request: FastifyRequest): boolean {
  return (error as { code?: string })?.code === 'ECONNRESET' && request.raw.socket?.destroyed === true;
}

function isStaticRefusal(error: unknown): boolean {
  const e = error as { statusCode?: number };
  return e?.statusCode === 403 && !(error instanceof DomainError) && !(error instanceof HttpProblemError);
}

export function sendProblem(reply: FastifyReply, body: Problem): FastifyReply {
  return reply.code(body.status).type('application/problem+json').send(body);
}
