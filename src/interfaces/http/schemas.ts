import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../application/shared/pagination';

/** Shared JSON schemas: they validate requests, shape responses (no field leaks) and generate /docs. */
export const ProblemSchema = {
  $id: 'Problem',
  type: 'object',
  description: 'RFC 9457 problem details',
  required: ['type', 'title', 'status', 'detail', 'code'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: { type: 'string', description: 'Stable error code' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['field', 'message'],
        properties: { field: { type: 'string' }, message: { type: 'string' } },
      },
    },
  },
} as const;

export const PaginationSchema = {
  $id: 'Pagination',
  type: 'object',
  required: ['page', 'page_size', 'page_count', 'total_document'],
  properties: {
    page: { type: 'integer' },
    page_size: { type: 'integer' },
    page_count: { type: 'integer' },
    total_document: { type: 'integer' },
  },
} as const;

const datetime = { type: 'string', format: 'date-time', description: 'ISO 8601 UTC with milliseconds' } as const;

export const UserSchema = {
  $id: 'User',
  type: 'object',
  description: 'Fields not known yet (a pending invitee’s name, username, joined_date) are left out.',
  required: ['_id', 'email', 'role', 'invited_date'],
  properties: {
    _id: { type: 'string' },
    name: { type: 'string' },
    email: { type: 'string' },
    username: { type: 'string' },
    role: {
      type: 'object',
      required: ['_id', 'name', 'permissions'],
      properties: {
        _id: { type: 'string' },
        name: { type: 'string' },
        permissions: { type: 'array', items: { type: 'string' } },
      },
    },
    invited_date: datetime,
    invited_by: { type: 'string' },
    joined_date: datetime,
    updated_date: datetime,
    updated_by: { type: 'string' },
  },
} as const;

/** One user as `GET /v1/users/{id}` and the changes show it: the list's shape plus its status. */
export const UserDetailSchema = {
  $id: 'UserDetail',
  type: 'object',
  description: UserSchema.description,
  required: [...UserSchema.required, 'status'],
  properties: {
    ...UserSchema.properties,
    status: { type: 'string', enum: ['pending', 'active', 'deactivated'] },
    invitation_expires_date: {
      type: 'string',
      format: 'date-time',
      description: 'A pending user’s, in GET /v1/users/{id}: when the current invitation link expires (absent until the mailer has issued it)',
    },
  },
} as const;

export const PermissionSchema = {
  $id: 'Permission',
  type: 'object',
  required: ['_id', 'group', 'name'],
  properties: { _id: { type: 'string' }, group: { type: 'string' }, name: { type: 'string' } },
} as const;

/** A role as its administration shows it (`GET /v1/roles`, `GET /v1/roles/{id}` and the changes). */
export const RoleSchema = {
  $id: 'Role',
  type: 'object',
  required: ['_id', 'name', 'permissions', 'built_in', 'created_date'],
  properties: {
    _id: { type: 'string' },
    name: { type: 'string' },
    permissions: { type: 'array', items: { type: 'string' }, description: 'Permission names, sorted' },
    built_in: { type: 'boolean', description: '`admin` and `member`: never deleted nor renamed; admin keeps every permission' },
    created_date: datetime,
    updated_date: datetime,
    updated_by: { type: 'string' },
  },
} as const;

const base64url = { type: 'string', pattern: '^[A-Za-z0-9_-]+$' } as const;

/**
 * A code of the authenticator app as typed: six digits, or three and three with a space between, as the apps show it
 * (totpDigits). Anything else is refused by the schema (400), before any secret is opened.
 */
export const totpCodeSchema = {
  type: 'string',
  minLength: 6,
  maxLength: 7,
  pattern: '^[0-9]{3} ?[0-9]{3}$',
  description: 'A current six-digit code of the authenticator app (`123456`, or `123 456` as the apps show it)',
} as const;

/**
 * A public key of the set (RFC 7517/7518/8037): Ed25519 (OKP), P-256 (EC) or RSA, always with `kid`, `alg` and `use`.
 *
 * One object schema with every member, not a `oneOf` of the key types: OpenAPI Generator (`typescript-fetch`,
 * `java --library native`) turns such a `oneOf` into types that keep only the members the branches name, and
 * generated clients lose `kid`, `use` and the key material without a word (docs/DECISIONS.md, "The JWK schema",
 * #22). Which members go with which `kty` is said in the descriptions and enforced by `if`/`then`/`else`, which
 * validators apply and generators ignore.
 */
export const JwkSchema = {
  $id: 'Jwk',
  type: 'object',
  description:
    'A public key that verifies our tokens. `kty` says which members it has: `EC` (`alg` ES256): `crv` P-256, `x`, `y`; ' +
    '`RSA` (`alg` RS256): `n`, `e`; `OKP` (`alg` EdDSA): `crv` Ed25519, `x`. Every key has `kid`, `alg` and `use`.',
  required: ['kty', 'kid', 'alg', 'use'],
  properties: {
    kty: { type: 'string', enum: ['EC', 'RSA', 'OKP'], description: 'Key type: decides which of the other members the key has' },
    kid: { type: 'string', description: 'Matches the `kid` in the header of the tokens this key verifies' },
    alg: { type: 'string', enum: ['ES256', 'RS256', 'EdDSA'], description: 'ES256 for `EC`, RS256 for `RSA`, EdDSA for `OKP`' },
    use: { type: 'string', const: 'sig' },
    crv: { type: 'string', enum: ['P-256', 'Ed25519'], description: '`EC`: P-256; `OKP`: Ed25519; absent for `RSA`' },
    x: { ...base64url, description: '`EC`: the x coordinate; `OKP`: the public key; absent for `RSA`' },
    y: { ...base64url, description: '`EC` only: the y coordinate' },
    n: { ...base64url, description: '`RSA` only: the modulus' },
    e: { ...base64url, description: '`RSA` only: the public exponent' },
  },
  if: { type: 'object', properties: { kty: { const: 'EC' } } },
  then: { type: 'object', properties: { crv: { const: 'P-256' }, alg: { const: 'ES256' }, x: base64url, y: base64url }, required: ['crv', 'x', 'y'] },
  else: {
    type: 'object',
    if: { type: 'object', properties: { kty: { const: 'RSA' } } },
    then: { type: 'object', properties: { alg: { const: 'RS256' }, n: base64url, e: base64url }, required: ['n', 'e'] },
    else: { type: 'object', properties: { crv: { const: 'Ed25519' }, alg: { const: 'EdDSA' }, x: base64url }, required: ['crv', 'x'] },
  },
} as const;

export const JwkSetSchema = {
  $id: 'JwkSet',
  type: 'object',
  required: ['keys'],
  properties: { keys: { type: 'array', minItems: 1, items: { $ref: 'Jwk#' } } },
} as const;

/** What /readyz reports, ready (200) or not (503). */
export const ReadinessSchema = {
  $id: 'Readiness',
  type: 'object',
  required: ['status', 'database', 'migrations', 'draining'],
  properties: {
    status: { type: 'string', enum: ['ready', 'not ready'] },
    database: { type: 'string', enum: ['up', 'down'] },
    migrations: { type: 'string', enum: ['applied', 'pending', 'unknown'] },
    draining: { type: 'boolean', description: 'Shutting down: answers still come, new work should go elsewhere' },
  },
} as const;

export const SHARED_SCHEMAS = [ProblemSchema, PaginationSchema, UserSchema, UserDetailSchema, PermissionSchema, RoleSchema, JwkSchema, JwkSetSchema, ReadinessSchema];

export const problemRef = { $ref: 'Problem#' } as const;

type Headers = Record<string, { type: 'string'; description: string }>;

/** An error answer as every error of this service is sent: RFC 9457 problem details, `application/problem+json`. */
export function problemResponse(description: string, headers?: Headers) {
  return { description, ...(headers ? { headers } : {}), content: { 'application/problem+json': { schema: problemRef } } };
}

const retryAfter: Headers = { 'retry-after': { type: 'string', description: 'Seconds to wait before trying again' } };

/** What any request can be answered with, whatever its route: Node's parser refusing it, or a fault of ours. */
export const anyRequestProblems = {
  400: problemResponse('The request is not valid: the failing fields are listed in `errors` when there are any'),
  408: problemResponse('The request did not arrive in time (answered before any route runs)'),
  417: problemResponse('An `Expect` header other than `100-continue` (answered before any route runs)'),
  431: problemResponse('The request head is larger than MAX_HEADER_SIZE (answered before any route runs)'),
  500: problemResponse('An unexpected fault; the body says nothing about it'),
};

/** The database or another backing service is away: a route that needs it answers this. */
export const unavailableProblem = problemResponse('A backing service is unavailable; retry after Retry-After seconds', retryAfter);

/** A body was sent to a route that reads JSON only: what parsing it may answer. */
export const bodyProblems = {
  413: problemResponse('The body is larger than BODY_LIMIT'),
  415: problemResponse('The body is not JSON (only `application/json` is read)'),
};

export const throttledProblem = problemResponse('Too many requests; retry after Retry-After seconds', retryAfter);

/** The problems any route behind a bearer token can answer with. */
export const protectedProblems = {
  ...anyRequestProblems,
  401: problemResponse('No valid bearer token', {
    'www-authenticate': {
      type: 'string',
      description: '`Bearer realm="access-control"` without a bearer token; `Bearer realm="access-control", error="invalid_token"` to one refused',
    },
  }),
  403: problemResponse('The token can only enroll a second factor (`MFA_ENROLLMENT_REQUIRED`, see MFA_REQUIRED_PERMISSIONS)'),
  503: unavailableProblem,
};

/** A protected route that needs a permission: missing it is a 403. */
export const permissionProblem = problemResponse('The caller’s role lacks the permission this route needs', {
  'www-authenticate': {
    type: 'string',
    description: '`Bearer realm="access-control", error="insufficient_scope", scope="<the permissions missing>"` (RFC 6750 §3.1)',
  },
});

export const pageQueryProperties = {
  page: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, default: 1, description: 'Page number, from 1; one past the last is an empty page with the true counts' },
  page_size: {
    type: 'integer',
    minimum: 1,
    maximum: MAX_PAGE_SIZE,
    default: DEFAULT_PAGE_SIZE,
    description: `Items per page, 1 to ${MAX_PAGE_SIZE}`,
  },
} as const;

export const PAGE_PARAMS = ['page', 'page_size'] as const;

/** A user's id in a path. Ids are ASCII (the column is ascii_bin): a non-ASCII id would make MariaDB refuse the comparison (500), so it is a 400. */
export const userIdParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', minLength: 1, maxLength: 36, pattern: '^[\\x20-\\x7e]+$' } },
} as const;
