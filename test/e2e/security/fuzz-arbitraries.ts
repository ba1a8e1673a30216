import fc from 'fast-check';
import { SEEDED_ROLES } from '../../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { ADMIN } from '../../support/test-app';

/** The fuzz suite's generators (fuzz.e2e.test.ts): values from a route's schema, bodies of every media type, queries, headers. */
/** Markers of a leak: a stack frame, SQL or a driver error, a secret. */
export const LEAKS = /\n\s+at |\bat [^\s]+ \(|\.ts:|\bSELECT\b|\bINSERT\b|\bER_[A-Z]|SQLITE|\$argon2|PRIVATE KEY/i;
export const safe = (s: string) => !LEAKS.test(s) && !s.includes(ADMIN.password);

export type JsonSchema = { type?: string | string[]; properties?: Record<string, JsonSchema>; required?: string[]; maxLength?: number; minLength?: number; minimum?: number; maximum?: number; items?: JsonSchema };


export const safeString = (maxLength = 40) => fc.string({ maxLength, unit: 'binary' }).filter(safe);
export const scalar = fc.oneof(safeString(), fc.integer(), fc.double(), fc.boolean(), fc.constant(null));
export const wrongTypes = fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.array(scalar, { maxLength: 3 }), fc.dictionary(safeString(8), scalar, { maxKeys: 3 }));

/** A value that mostly fits the schema, often sits just outside a bound, sometimes has the wrong type. */
export function fromSchema(schema: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'object' && schema.properties && depth < 3) {
    const model = Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k, fromSchema(v, depth + 1)]));
    // Mostly with the required keys (so the handler is reached), sometimes without.
    return fc.oneof(
      { weight: 3, arbitrary: fc.record(model, { requiredKeys: (schema.required ?? []).filter((k) => k in model) }) },
      { weight: 1, arbitrary: fc.record(model, { requiredKeys: [] }) },
    );
  }
  if (type === 'string') {
    const max = schema.maxLength ?? 64;
    return fc.oneof(
      { weight: 4, arbitrary: safeString(Math.min(max, 60)) },
      { weight: 3, arbitrary: fc.emailAddress().filter((e) => e.length <= max && safe(e)) },
      { weight: 2, arbitrary: fc.constantFrom('fuzz-user', 'someone@example.com', 'a long enough passphrase', 'admin', 'member', SEEDED_ROLES.admin, '', ' ', 'Ω@example.com', 'jose\u0301@example.com', 'bob\u200b@example.com', '\u202eadmin@example.com', 'users:read', 'fuzz-role', 'Fuzz.Role') },
      { weight: 1, arbitrary: fc.integer({ min: Math.max(0, max - 1), max: max + 2 }).map((n) => 'x'.repeat(n)) },
      { weight: 1, arbitrary: wrongTypes },
    );
  }
  if (type === 'array' && schema.items && depth < 3) {
    // A role's permissions (#11): often empty or short lists of fitting strings, so the handler is reached.
    return fc.oneof(
      { weight: 2, arbitrary: fc.constant([]) },
      { weight: 3, arbitrary: fc.array(fromSchema(schema.items, depth + 1), { maxLength: 3 }) },
      { weight: 1, arbitrary: wrongTypes },
    );
  }
  if (type === 'integer' || type === 'number') {
    return fc.oneof(fc.integer({ min: (schema.minimum ?? 0) - 2, max: (schema.maximum ?? 1000) + 2 }), fc.double(), fc.constant(1e308), wrongTypes);
  }
  return fc.oneof(scalar, wrongTypes);
}

export const deepNesting = fc.integer({ min: 50, max: 3000 }).chain((n) => fc.constantFrom('['.repeat(n) + ']'.repeat(n), '{"a":'.repeat(n) + '1' + '}'.repeat(n), '['.repeat(n)));
export const pollution = fc.constantFrom(
  '{"__proto__":{"polluted":"yes"}}',
  '{"constructor":{"prototype":{"polluted":"yes"}}}',
  '{"email":"p@example.com","__proto__":{"role":"admin"}}',
  '{"a":{"__proto__":{"polluted":"yes"}},"username":"x","password":"y"}',
  '[{"__proto__":{"polluted":"yes"}}]',
);

/**
 * Only the schema's required keys, each a plausible value: such bodies pass validation often enough
 * that every route's handler is reached in a few hundred cases (random strings and addresses mostly
 * fail the e-mail rules or name no role, so without these a route could go 200 cases unreached).
 */
export function plausible(schema: JsonSchema): fc.Arbitrary<unknown> {
  const required = (schema.required ?? []).filter((k) => schema.properties && k in schema.properties);
  // 'member' names a role that exists: `{name: "member", role: "member"}` creates a service account.
  const value = fc.constantFrom('someone@example.com', 'fuzz.user', 'a long enough passphrase', 'member');
  // A list (a role's permissions) is plausible empty: `{name: "fuzz.user", permissions: []}` creates a role. A role is
  // always one that exists: with any of the four, three service-account creations in four failed on the role, and a
  // run of 200 cases went without reaching that handler once (CI, 2026-12-08).
  const plausibleFor = (k: string) => (schema.properties![k]!.type === 'array' ? fc.constant([]) : k === 'role' ? fc.constant('member') : value);
  return fc.record(Object.fromEntries(required.map((k) => [k, plausibleFor(k)])));
}

export function bodies(schema: JsonSchema | undefined): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 6, arbitrary: (schema ? fromSchema(schema) : fc.constant({})).map((v) => JSON.stringify(v)) },
    { weight: 3, arbitrary: (schema?.type === 'object' ? plausible(schema) : fc.constant({})).map((v) => JSON.stringify(v)) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)).filter(safe) },
    { weight: 1, arbitrary: pollution },
    { weight: 1, arbitrary: deepNesting },
    { weight: 1, arbitrary: fc.integer({ min: 16_000, max: 40_000 }).map((n) => JSON.stringify({ username: 'x'.repeat(n), email: 'y', token: 'z', password: 'p' })) },
    { weight: 1, arbitrary: safeString(60) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

export const FORM_MEDIA = 'application/x-www-form-urlencoded';

/** A value as an HTML form would carry it: an object's fields (a list as the field repeated), anything else as its text. */
export function formEncode(value: unknown): string {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return textOf(value);
  const form = new URLSearchParams();
  for (const [key, field] of Object.entries(value)) for (const item of Array.isArray(field) ? field : [field]) form.append(key, textOf(item));
  return form.toString();
}

/**
 * Any generated value as text. String() throws on what fast-check can make (an object without a
 * prototype, or whose `toString`/`valueOf` is not a function): such a value goes as its JSON.
 */
export function textOf(value: unknown): string {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return String(value);
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/** The token endpoint's forms: from its schema, and grants of every kind, often with a real refresh token of the fuzz's own user. */
export function oauthForms(schema: JsonSchema | undefined, refreshTokens: string[], client: { clientId: string; secret: string }): fc.Arbitrary<string | undefined> {
  const grant = fc.record(
    {
      grant_type: fc.constantFrom('refresh_token', 'refresh_token', 'client_credentials', 'password', 'authorization_code', '', 'REFRESH_TOKEN'),
      refresh_token: fc.oneof(fc.constantFrom(...refreshTokens, 'x'.repeat(43), '', 'x'.repeat(129)), safeString(60)),
      scope: fc.oneof(fc.constantFrom('tokens:introspect', 'users:delete', 'a  b', ''), safeString(20)),
      client_id: fc.oneof(fc.constant(client.clientId), safeString(20)),
      // The client credentials grant (#21): a real client's secret or a guess, assertions that are not.
      client_secret: fc.oneof(fc.constant(client.secret), safeString(20)),
      client_assertion_type: fc.constantFrom('urn:ietf:params:oauth:client-assertion-type:jwt-bearer', 'x'),
      client_assertion: fc.oneof(fc.constantFrom('a.b.c', 'eyJhbGciOiJub25lIn0.e30.', 'x'.repeat(9000)), safeString(60)),
    },
    { requiredKeys: ['grant_type'] },
  );
  return fc.oneof(
    { weight: 4, arbitrary: formBodies(schema, refreshTokens) },
    { weight: 4, arbitrary: grant.map((value) => formEncode(value)) },
    { weight: 1, arbitrary: fc.constantFrom('grant_type=refresh_token&grant_type=refresh_token', 'grant_type=refresh_token&refresh_token=a&refresh_token=b', '{"grant_type":"refresh_token"}') },
    // A well-formed exchange of a token nobody holds: the grant itself is reached in every run, not by chance.
    { weight: 1, arbitrary: fc.constant(`grant_type=refresh_token&refresh_token=${'x'.repeat(43)}`) },
    // The client credentials grant with a wrong secret: its client authentication is reached in every run.
    { weight: 1, arbitrary: fc.constant(`grant_type=client_credentials&client_id=${encodeURIComponent(client.clientId)}&client_secret=wrong`) },
  );
}

/** Revocation's and introspection's forms: a token (often a real refresh token), a hint, often a real client's secret. */
export function tokenForms(schema: JsonSchema | undefined, tokens: string[], client: { clientId: string; secret: string }): fc.Arbitrary<string | undefined> {
  const form = fc.record(
    {
      token: fc.oneof(fc.constantFrom(...tokens, 'x'.repeat(43), '', 'a.b.c', 'x'.repeat(17_000)), safeString(60)),
      token_type_hint: fc.oneof(fc.constantFrom('access_token', 'refresh_token', 'id_token', ''), safeString(20)),
      client_id: fc.oneof(fc.constant(client.clientId), safeString(20)),
      client_secret: fc.oneof(fc.constant(client.secret), safeString(20)),
      client_assertion_type: fc.constantFrom('urn:ietf:params:oauth:client-assertion-type:jwt-bearer', 'x'),
      client_assertion: safeString(60),
    },
    { requiredKeys: ['token'] },
  );
  return fc.oneof(
    { weight: 4, arbitrary: formBodies(schema, tokens) },
    { weight: 4, arbitrary: form.map((value) => formEncode(value)) },
    { weight: 1, arbitrary: fc.constantFrom('token=a&token=b', '{"token":"x"}', `token=x&client_id=${client.clientId}&client_id=y`) },
    // A well-formed request of the real client: the handler itself is reached in every run, not by chance.
    { weight: 1, arbitrary: fc.constantFrom(...tokens).map((token) => formEncode({ token, client_id: client.clientId, client_secret: client.secret })) },
  );
}

/** Form bodies from the schema, often with the token of a real pending invitation, so the form itself is rendered again. */
export function formBodies(schema: JsonSchema | undefined, tokens: string[]): fc.Arbitrary<string | undefined> {
  // The first token is kept for a body the form always renders again (a password too short), so some cases render
  // the form whatever the others did: a valid password there uses its token up, and every later case finds it dead.
  const [kept, ...pool] = tokens;
  const token = fc.option(fc.constantFrom(...(pool.length > 0 ? pool : tokens)), { nil: undefined, freq: 2 });
  const rendersAgain = kept === undefined ? [] : [{ weight: 1, arbitrary: fc.constant(formEncode({ token: kept, name: 'Fuzz', username: 'fuzz.form', password: 'short' })) }];
  const withToken = (value: unknown, real: string | undefined) =>
    real !== undefined && value !== null && typeof value === 'object' && !Array.isArray(value) ? { ...value, token: real } : value;
  return fc.oneof(
    { weight: 6, arbitrary: fc.tuple(schema ? fromSchema(schema) : fc.constant({}), token).map(([value, real]) => formEncode(withToken(value, real))) },
    { weight: 3, arbitrary: fc.tuple(schema?.type === 'object' ? plausible(schema) : fc.constant({}), token).map(([value, real]) => formEncode(withToken(value, real))) },
    { weight: 1, arbitrary: fc.constantFrom('__proto__[polluted]=yes&token=x', 'constructor[prototype][polluted]=yes', '__proto__=x&name=a&username=b&password=c&token=d', '%E0%A4%A=1', '&&&==&') },
    { weight: 1, arbitrary: fc.integer({ min: 16_000, max: 40_000 }).map((n) => `username=${'x'.repeat(n)}&token=z&name=n&password=p`) },
    { weight: 1, arbitrary: safeString(60) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    ...rendersAgain,
  );
}

export const QUERY_KEYS = ['page', 'page_size', 'group', 'name', 'filter[group]', 'filter[name]', 'filter[group][]', 'filter[group][x]', 'filter', 'page[]', '__proto__', '__proto__[polluted]', 'constructor[prototype][polluted]', 'token',
  // The user list's filters (#11).
  'role', 'status', 'email', 'q', 'filter[role]', 'filter[status]', 'filter[email]', 'filter[q]', 'filter[q][]', 'q[]',
  // The user list's cursor (#26), and the audit trail's filters and cursor (#23).
  'after', 'after[]', 'actor', 'target', 'action', 'outcome', 'from', 'to', 'request_id', 'cursor', 'cursor[]'];
/** Values of the cursors and the audit filters: ids, instants (real, impossible, far off), outcomes, actions, cursor-shaped strings. */
const QUERY_VALUES = ['01a1fc99-0000-7000-8000-000000000000', '01A1FC99-0000-7000-8000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '2000-01-01T00:00:00Z', '2099-01-01T00:00:00Z', '2026-02-30T25:61:00Z', '2026-01-01', '2026-01-01T00:00:00+14:00', '-271821-04-20T00:00:00Z',
  'success', 'failure', 'user.signed_in', 'user.*', 'eyJ0IjoxfQ', 'AAAAAAAAAAAAAAAA', 'x'.repeat(200)];
export const queryStrings = fc.oneof(
  fc.constant(''),
  fc
    .array(
      fc.tuple(
        fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...QUERY_KEYS) }, { weight: 1, arbitrary: safeString(10) }),
        fc.oneof(fc.constantFrom('1', '100', '101', '0', '-1', '1e3', ' 7', '0x10', '99999999999', 'users', 'permissions', 'users:read', '', 'admin', 'member', 'active', 'pending', 'deactivated', 'admin@example.com', '%', '_', 'é', '😀', ' '), fc.constantFrom(...QUERY_VALUES), safeString(20)),
        fc.boolean(),
      ),
      { maxLength: 6 },
    )
    .map((pairs) => '?' + pairs.map(([k, v, raw]) => (raw ? `${k.replace(/[^\x21-\x7e]|[#%&=]/g, '')}=${v.replace(/[^\x21-\x7e]|[#%&]/g, '')}` : `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)).join('&')),
);

/** A documented query parameter of a route (the OpenAPI operation's `parameters`, `in: query`). */
export interface QueryParameter {
  in: string;
  name: string;
  required?: boolean;
  schema: JsonSchema & { format?: string; enum?: unknown[]; pattern?: string };
}

/** A value that mostly fits a query parameter's schema, sometimes sits just outside a bound, sometimes is junk. */
function queryValue(schema: QueryParameter['schema']): fc.Arbitrary<string> {
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  const junk = fc.oneof(fc.constantFrom(...QUERY_VALUES), safeString(20));
  if (type === 'integer') {
    const [min, max] = [schema.minimum ?? 0, schema.maximum ?? 1000];
    return fc.oneof({ weight: 3, arbitrary: fc.integer({ min: min - 1, max: Math.min(max, 2_000_000) + 1 }).map(String) }, { weight: 1, arbitrary: junk });
  }
  // Instants mostly since 2020, most of them ahead (an export of all that came after a past one is the whole trail).
  if (schema.format === 'date-time') return fc.oneof({ weight: 3, arbitrary: fc.date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString()) }, { weight: 1, arbitrary: junk });
  if (schema.enum) return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...schema.enum.map(String)) }, { weight: 1, arbitrary: junk });
  if (schema.pattern) {
    const [min, max] = [schema.minLength ?? 0, schema.maxLength ?? 64];
    const fitting = fc.stringMatching(new RegExp(schema.pattern)).filter((v) => v.length >= min && v.length <= max && safe(v));
    return fc.oneof({ weight: 3, arbitrary: fitting }, { weight: 1, arbitrary: junk });
  }
  return junk;
}

/**
 * Query strings from a route's documented parameters: its required ones always, each other one half the time, with
 * values that mostly fit (so a route with a strict query, as the audit export's, is reached past validation). None
 * documented: the generic query strings.
 */
export function documentedQueries(parameters: readonly QueryParameter[]): fc.Arbitrary<string> {
  const query = parameters.filter((p) => p.in === 'query');
  if (query.length === 0) return queryStrings;
  const model = Object.fromEntries(query.map((p) => [p.name, queryValue(p.schema)]));
  const required = query.filter((p) => p.required).map((p) => p.name);
  return fc.record(model, { requiredKeys: required }).map((values) => '?' + Object.entries(values).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&'));
}

export const CONTENT_TYPES = ['application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'application/problem+json', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=latin1', 'application/jsonx', 'application/xml', '*/*', ''];
export const printable = fc.string({ maxLength: 60, unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)) }).filter(safe);

export function authorizations(token: () => string) {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant('valid') },
    { weight: 1, arbitrary: fc.constantFrom('', 'Bearer', 'Bearer ', 'Bearer a.b.c', 'Basic YWRtaW46YWRtaW4=', 'bearer ..', 'Bearer eyJhbGciOiJub25lIn0.e30.', 'Bearer ' + 'A'.repeat(8000)) },
    { weight: 1, arbitrary: printable.map((s) => `Bearer ${s}`) },
    { weight: 1, arbitrary: fc.constantFrom('tamper', 'suffix') },
  ).map((kind) => {
    if (kind === 'valid') return `Bearer ${token()}`;
    if (kind === 'tamper') return `Bearer ${token().slice(0, -4)}AAAA`;
    if (kind === 'suffix') return `Bearer ${token()}.x`;
    return kind;
  });
}

// --- the run --------------------------------------------------------------------------------------
