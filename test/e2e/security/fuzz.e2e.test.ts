import { request as httpRequest } from 'node:http';
import { asValue } from 'awilix';
import fc from 'fast-check';
import { SEEDED_ROLES } from '../../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { CapturingMailer } from '../../support/capturing-mailer';
import { SoftAuthenticator } from '../../support/soft-authenticator';
import { ADMIN, startTestApp, type TestApp } from '../../support/test-app';
import {
  authorizations,
  bodies,
  CONTENT_TYPES,
  documentedQueries,
  FORM_MEDIA,
  formBodies,
  type JsonSchema,
  LEAKS,
  oauthForms,
  printable,
  type QueryParameter,
  queryStrings,
  safeString,
  tokenForms,
} from './fuzz-arbitraries';

/**
 * Property-based fuzzing of every route that reads a body (the /v1 routes and the invitation page's
 * form) over real HTTP on MariaDB: bodies from the route's own schema and media type (read from
 * /docs/json) and fully arbitrary ones, query strings, headers. FUZZ_RUNS (default
 * 200) cases per route; raise it for a long run: FUZZ_RUNS=20000 npx jest test/e2e/security/fuzz --selectProjects integration
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 200);
jest.setTimeout(Math.max(120_000, RUNS * 22 * 50));

/** What the unknown POST /v1/resources may answer: 401 without a valid token, 404 with one, and what reading its body may answer first. */
const UNKNOWN_ROUTE_STATUSES = [400, 401, 404, 413, 415, 431] as const;
interface Operation {
  responses?: Record<string, unknown>;
  parameters?: QueryParameter[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}
interface Route {
  method: string;
  /** OpenAPI path, or the raw path of a route that does not exist. */
  path: string;
  authenticated: boolean;
}

const ROUTES: Route[] = [
  { method: 'POST', path: '/v1/auth/signin', authenticated: false },
  { method: 'POST', path: '/v1/auth/signout', authenticated: true },
  { method: 'GET', path: '/v1/users', authenticated: true },
  { method: 'POST', path: '/v1/users/invite', authenticated: true },
  { method: 'GET', path: '/v1/permissions', authenticated: true },
  { method: 'POST', path: '/v1/invitations/accept', authenticated: false },
  // Before resend and revoke, which replace and remove the pending invitations whose real tokens it also posts.
  { method: 'POST', path: '/invitations/accept', authenticated: false },
  { method: 'POST', path: '/v1/users/{id}/invitation/resend', authenticated: true },
  { method: 'DELETE', path: '/v1/users/{id}/invitation', authenticated: true },
  // The administration of one user last: deactivating and deleting the pending users would change what resend and revoke answer.
  { method: 'GET', path: '/v1/users/{id}', authenticated: true },
  { method: 'PATCH', path: '/v1/users/{id}', authenticated: true },
  { method: 'POST', path: '/v1/users/{id}/reactivate', authenticated: true },
  { method: 'POST', path: '/v1/users/{id}/deactivate', authenticated: true },
  { method: 'DELETE', path: '/v1/users/{id}', authenticated: true },
  // Role administration (#11): ids include the seeded admin role's (built in: 409, never deleted).
  { method: 'GET', path: '/v1/roles', authenticated: true },
  { method: 'POST', path: '/v1/roles', authenticated: true },
  { method: 'GET', path: '/v1/roles/{id}', authenticated: true },
  { method: 'PATCH', path: '/v1/roles/{id}', authenticated: true },
  { method: 'DELETE', path: '/v1/roles/{id}', authenticated: true },
  // Own account and refresh (#10). The password change runs on the leaver's token, after sign-out's fuzzing: its wrong
  // current passwords lock the leaver's sign-in, never the admin's.
  { method: 'GET', path: '/v1/me', authenticated: true },
  { method: 'POST', path: '/v1/me/password', authenticated: true },
  { method: 'POST', path: '/v1/auth/refresh', authenticated: false },
  { method: 'POST', path: '/v1/auth/console-session', authenticated: false },
  // Password reset (#10): the form's posts carry real reset tokens of joined users (see resetTokens).
  { method: 'POST', path: '/v1/auth/password-reset', authenticated: false },
  { method: 'GET', path: '/password-reset', authenticated: false },
  { method: 'POST', path: '/password-reset', authenticated: false },
  { method: 'POST', path: '/v1/auth/password-reset/confirm', authenticated: false },
  // The OAuth token endpoint (#21): form bodies, and every refusal in RFC 6749 §5.2's JSON rather than problem+json.
  { method: 'POST', path: '/oauth/token', authenticated: false },
  // Introspection and revocation (#21): forms too, with real refresh tokens and a real client's secret; revocation last,
  // as it ends the refresh tokens' families.
  { method: 'POST', path: '/oauth/introspect', authenticated: false },
  { method: 'POST', path: '/oauth/revoke', authenticated: false },
  // Service accounts (#21): the secret's delete after the secrets' list and add; the keys before the account's delete.
  { method: 'GET', path: '/v1/service-accounts', authenticated: true },
  { method: 'POST', path: '/v1/service-accounts', authenticated: true },
  { method: 'GET', path: '/v1/service-accounts/{id}', authenticated: true },
  { method: 'PATCH', path: '/v1/service-accounts/{id}', authenticated: true },
  { method: 'GET', path: '/v1/service-accounts/{id}/secrets', authenticated: true },
  { method: 'POST', path: '/v1/service-accounts/{id}/secrets', authenticated: true },
  { method: 'DELETE', path: '/v1/service-accounts/{id}/secrets/{secretId}', authenticated: true },
  { method: 'PUT', path: '/v1/service-accounts/{id}/keys', authenticated: true },
  { method: 'DELETE', path: '/v1/service-accounts/{id}', authenticated: true },
  // Second factors (#24), on the tokens of a user of their own (fuzz-mfa): its wrong passwords lock it, never the admin.
  // The sign-in's second step carries real mfa_tokens of that user (see mfaTickets) besides arbitrary ones.
  { method: 'POST', path: '/v1/auth/signin/mfa', authenticated: false },
  { method: 'POST', path: '/v1/auth/signin/mfa/webauthn-options', authenticated: false },
  { method: 'GET', path: '/v1/me/mfa', authenticated: true },
  { method: 'POST', path: '/v1/me/mfa/webauthn/registration-options', authenticated: true },
  { method: 'POST', path: '/v1/me/mfa/webauthn', authenticated: true },
  { method: 'PATCH', path: '/v1/me/mfa/webauthn/{id}', authenticated: true },
  { method: 'DELETE', path: '/v1/me/mfa/webauthn/{id}', authenticated: true },
  // Enrollment of an authenticator app, then its confirmation with fuzzed codes (a right one by chance confirms it),
  // and the recovery codes' regeneration: all on fuzz-mfa's token, before the app's removal.
  { method: 'POST', path: '/v1/me/mfa/totp', authenticated: true },
  { method: 'POST', path: '/v1/me/mfa/totp/confirm', authenticated: true },
  { method: 'POST', path: '/v1/me/mfa/recovery-codes', authenticated: true },
  { method: 'DELETE', path: '/v1/me/mfa/totp', authenticated: true },
  // An admin's reset of another user's factors: the ids are pending users, service accounts and a passkey, never
  // fuzz-mfa, whose sessions it would end.
  { method: 'DELETE', path: '/v1/users/{id}/mfa', authenticated: true },
  // The audit trail (#23): its filters, instants and cursors from the query strings.
  { method: 'GET', path: '/v1/audit-events', authenticated: true },
  { method: 'GET', path: '/v1/audit-events/export', authenticated: true },
  // The console's session (its cookie and CSRF header absent or junk): refused before any session is read.
  { method: 'POST', path: '/v1/auth/console-session/refresh', authenticated: false },
  { method: 'DELETE', path: '/v1/auth/console-session', authenticated: false },
  { method: 'POST', path: '/v1/resources', authenticated: true },
];

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

function send(base: string, method: string, target: string, headers: Record<string, string>, body?: Buffer): Promise<RawResponse> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, method, path: target, headers: { ...headers, ...(body ? { 'content-length': String(body.length) } : {}) }, timeout: 10_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`timeout: ${method} ${target}`)));
    req.on('error', reject);
    req.end(body);
  });
}

describe(`fuzzing every route (${RUNS} cases each)`, () => {
  let app: TestApp;
  let adminToken: string;
  let leaverToken: string;
  let doc: { paths: Record<string, Record<string, Operation>> };
  const pendingIds: string[] = [];
  const pendingTokens: string[] = [];
  const resetTokens: string[] = [];
  const refreshTokens: string[] = [];
  const introspector = { clientId: '', secret: '' };
  let mfaToken = '';
  const mfaTickets: string[] = [];
  const mailer = new CapturingMailer();
  const statuses = new Map<string, Map<number, number>>();
  const prototypeBefore = Object.getOwnPropertyNames(Object.prototype).sort();

  beforeAll(async () => {
    // The failed-client-authentication limit off (service-tokens.e2e tests it, across replicas): the token
    // route's wrong secrets spend its 20 a minute from this one address, and introspection's well-formed requests,
    // run next, then found it spent or not depending on how fast the machine ran the token route (a flaky 0 × 200).
    app = await startTestApp({ LOG_LEVEL: process.env.FUZZ_LOG ?? 'silent', CLIENT_AUTH_RATE_LIMIT: '0' }, { mailer: asValue(mailer) });
    adminToken = await app.signIn();
    await app.addJoinedUser({ username: 'fuzz-leaver', password: 'leaver-password-1', email: 'leaver@example.com', role: { id: SEEDED_ROLES.member, name: 'member', permissions: [] } });
    leaverToken = await app.signIn('fuzz-leaver', 'leaver-password-1');
    doc = (await app.request('GET', '/docs/json')).body;
    for (let i = 0; i < 5; i++) {
      expect((await app.request('POST', '/v1/users/invite', { token: adminToken, json: { email: `pending-${i}@example.com` } })).status).toBe(201);
    }
    const rows: { id: string }[] = await app.api.container.cradle.dataSource.query("SELECT id FROM users WHERE email_key LIKE 'pending-%'");
    pendingIds.push(...rows.map((r) => r.id));
    // Real service accounts (#21), each with a second secret, so their routes are reached with ids that exist.
    for (let i = 0; i < 3; i++) {
      const account = await app.request('POST', '/v1/service-accounts', { token: adminToken, json: { name: `fuzz-sa-${i}`, role: 'member' } });
      const secret = await app.request('POST', `/v1/service-accounts/${account.body._id}/secrets`, { token: adminToken, json: {} });
      pendingIds.push(account.body._id, secret.body._id);
    }
    // A client that may introspect (#21), whose secret the OAuth forms often carry.
    expect((await app.request('POST', '/v1/roles', { token: adminToken, json: { name: 'fuzz-introspector', permissions: ['tokens:introspect'] } })).status).toBe(201);
    const checker = await app.request('POST', '/v1/service-accounts', { token: adminToken, json: { name: 'fuzz-checker', role: 'fuzz-introspector' } });
    Object.assign(introspector, { clientId: checker.body.client_id, secret: checker.body.client_secret });
    const deadline = Date.now() + 10_000;
    while (mailer.sent.length < 5 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    pendingTokens.push(...mailer.sent.map((mail) => CapturingMailer.tokenOf(mail)));
    expect(pendingTokens).toHaveLength(5);
    await app.addJoinedUser({ username: 'fuzz-refresher', password: 'refresher-password-1', email: 'refresher@example.com', role: { id: SEEDED_ROLES.member, name: 'member', permissions: [] } });
    for (let i = 0; i < 5; i++) {
      const signedIn = await app.request('POST', '/v1/auth/signin', { json: { username: 'fuzz-refresher', password: 'refresher-password-1' } });
      refreshTokens.push(signedIn.body.refreshToken as string);
    }
    // A user with a passkey (#24): its id reaches the passkey routes' handlers, its tickets the second step's.
    await app.addJoinedUser({ username: 'fuzz-mfa', password: 'fuzz-mfa-password-1', email: 'fuzz-mfa@example.com', role: { id: SEEDED_ROLES.member, name: 'member', permissions: [] } });
    mfaToken = await app.signIn('fuzz-mfa', 'fuzz-mfa-password-1');
    const authenticator = new SoftAuthenticator(app.api.container.cradle.config.publicUrl);
    const creation = await app.request('POST', '/v1/me/mfa/webauthn/registration-options', { token: mfaToken, json: { password: 'fuzz-mfa-password-1' } });
    const passkey = await app.request('POST', '/v1/me/mfa/webauthn', { token: mfaToken, json: { response: authenticator.create(creation.body) } });
    pendingIds.push(passkey.body.id);
    for (let i = 0; i < 5; i++) mfaTickets.push((await app.request('POST', '/v1/auth/signin', { json: { username: 'fuzz-mfa', password: 'fuzz-mfa-password-1' } })).body.mfa_token);
    for (let i = 0; i < 5; i++) {
      const email = `fuzz-reset-${i}@example.com`;
      await app.addJoinedUser({ username: `fuzz-reset-${i}`, password: 'reset-password-1', email, role: { id: SEEDED_ROLES.member, name: 'member', permissions: [] } });
      const before = mailer.sent.length;
      expect((await app.request('POST', '/v1/auth/password-reset', { json: { email } })).status).toBe(202);
      resetTokens.push(await mailer.tokenSentTo(email, before));
    }
  });

  afterAll(async () => {
    await app?.close();
    if (process.env.FUZZ_REPORT) console.log(JSON.stringify([...statuses].map(([route, counts]) => [route, Object.fromEntries(counts)]), null, 1));
  });

  it('reads every fuzzed route from the OpenAPI document (55 documented, 1 unknown)', () => {
    const documented = ROUTES.filter((r) => doc.paths[r.path]?.[r.method.toLowerCase()]);
    expect(documented.map((r) => `${r.method} ${r.path}`)).toHaveLength(55);
    expect(doc.paths['/v1/resources']).toBeUndefined();
  });

  it.each(ROUTES.map((r) => [`${r.method} ${r.path}`, r] as const))('%s: never 5xx, only documented statuses, errors as documented, no leak', async (_name, route) => {
    const operation = doc.paths[route.path]?.[route.method.toLowerCase()];
    // A documented route answers what its operation declares, checked by the contract (status, media type, body schema).
    const allowed = new Set<number>(operation ? Object.keys(operation.responses ?? {}).map(Number) : UNKNOWN_ROUTE_STATUSES);
    // The one media type the route reads (JSON, or the page's form) and its schema.
    const [media, bodyContent] = Object.entries(operation?.requestBody?.content ?? {})[0] ?? ['application/json', undefined];
    const bodySchema = bodyContent?.schema;
    let formsRendered = 0;
    const oauth = route.path.startsWith('/oauth/');
    const oauthErrors = new Set<string>();
    const counts = new Map<number, number>();
    statuses.set(`${route.method} ${route.path}`, counts);
    const token = () => (route.path === '/v1/auth/signout' || route.path === '/v1/me/password' ? leaverToken : route.path.startsWith('/v1/me/mfa') ? mfaToken : adminToken);

    const ids = fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...pendingIds, '01a1fc99-0000-7000-8000-000000000000', SEEDED_ROLES.admin) },
      { weight: 2, arbitrary: safeString(60).map((s) => encodeURIComponent(s) || 'x') },
      { weight: 1, arbitrary: fc.constantFrom('..', '%2e%2e', '%00', 'x'.repeat(300), '%E0%A4%A', '__proto__', 'constructor') },
    );

    await fc.assert(
      fc.asyncProperty(
        route.path === '/oauth/token'
          ? oauthForms(bodySchema, refreshTokens, introspector)
          : oauth
            ? tokenForms(bodySchema, refreshTokens, introspector)
            : media === FORM_MEDIA
              ? formBodies(bodySchema, route.path === '/password-reset' ? resetTokens : pendingTokens)
              : route.path.startsWith('/v1/auth/signin/mfa')
                ? fc.oneof(bodies(bodySchema), fc.constantFrom(...mfaTickets).map((t) => JSON.stringify({ mfa_token: t })))
                : bodies(bodySchema),
        fc.oneof(queryStrings, documentedQueries(operation?.parameters ?? [])),
        fc.oneof({ weight: 3, arbitrary: fc.constant(media) }, { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) }),
        authorizations(token),
        ids,
        fc.option(fc.dictionary(fc.constantFrom('x-request-id', 'accept', 'x-forwarded-for', 'accept-encoding', 'x-junk'), printable, { maxKeys: 3 }), { nil: undefined }),
        async (body, query, contentType, authorization, id, extraHeaders) => {
          const target = route.path.replace('{id}', id).replace('{secretId}', id) + query;
          const headers: Record<string, string> = { ...extraHeaders };
          if (route.authenticated) headers.authorization = authorization;
          if (body !== undefined && contentType !== '') headers['content-type'] = contentType;
          const response = await send(app.url, route.method, target, headers, body === undefined ? undefined : Buffer.from(body, 'utf8'));
          counts.set(response.status, (counts.get(response.status) ?? 0) + 1);
          const what = `${route.method} ${target} [${contentType}] ${String(body).slice(0, 200)} → ${response.status} ${response.text.slice(0, 300)}`;

          if (response.status >= 500) throw new Error(`5xx: ${what}`);
          if (!allowed.has(response.status)) throw new Error(`undocumented status: ${what}`);
          const contract = app.contract.check({ method: route.method, target, status: response.status, contentType: String(response.headers['content-type'] ?? ''), body: response.text });
          if (contract.length > 0) throw new Error(`not as documented: ${what}\n${contract.join('\n')}`);
          if (LEAKS.test(response.text) || response.text.includes(ADMIN.password)) throw new Error(`leak: ${what}`);
          // The form's pages: what was entered comes back escaped (the page's one script tag is its own).
          const page = String(response.headers['content-type']).startsWith('text/html');
          if (page && (response.text.match(/<script/gi) ?? []).length > 1) throw new Error(`unescaped markup: ${what}`);
          if (page && /<form id="(accept|reset-form)"/.test(response.text)) formsRendered++;
          // The token endpoint's refusals are RFC 6749 §5.2 JSON (problem+json only from Node's parser, before any route).
          if (oauth && response.status >= 400 && String(response.headers['content-type']).startsWith('application/json')) {
            const refusal = JSON.parse(response.text) as Record<string, unknown>;
            if (typeof refusal.error !== 'string' || typeof refusal.error_description !== 'string') throw new Error(`not an OAuth error: ${what}`);
            if (response.headers['cache-control'] !== 'no-store') throw new Error(`OAuth error without no-store: ${what}`);
            oauthErrors.add(refusal.error);
            return;
          }
          // Any other error is problem+json (the contract above allows text/html only where the document declares it).
          if (response.status >= 400 && !page) {
            if (!String(response.headers['content-type']).startsWith('application/problem+json')) throw new Error(`not problem+json: ${what}`);
            const problem = JSON.parse(response.text) as Record<string, unknown>;
            for (const field of ['type', 'title', 'detail', 'code']) if (typeof problem[field] !== 'string') throw new Error(`problem without ${field}: ${what}`);
            if (problem.status !== response.status) throw new Error(`problem status differs: ${what}`);
          }
          if (route.path === '/v1/auth/signout' && response.status === 204) leaverToken = await app.signIn('fuzz-leaver', 'leaver-password-1');
        },
      ),
      { numRuns: RUNS },
    );

    expect([...counts.values()].reduce((a, b) => a + b, 0)).toBe(RUNS);
    // The fuzz reached past authentication and validation: some answers came from the handlers.
    // (The password change's handler refuses a wrong current password with a 400 of its own: WRONG_CURRENT_PASSWORD.)
    // (So do the factors' additions and removals, the recovery codes' regeneration, an enrollment's confirmation and a
    // passkey's registration: a wrong password, code or credential is a 400 of their own.)
    const refusesWithA400 = [
      'POST /v1/me/password',
      'POST /v1/me/mfa/totp',
      'DELETE /v1/me/mfa/totp',
      'POST /v1/me/mfa/totp/confirm',
      'POST /v1/me/mfa/recovery-codes',
      'POST /v1/me/mfa/webauthn/registration-options',
      'DELETE /v1/me/mfa/webauthn/{id}',
      'POST /v1/me/mfa/webauthn',
    ];
    if (route.authenticated && route.path !== '/v1/resources' && !refusesWithA400.includes(`${route.method} ${route.path}`)) expect([...counts.keys()].some((s) => s !== 400 && s !== 401 && s !== 413 && s !== 415)).toBe(true);
    // The form was rendered again with what the fuzz entered, not only dead-link pages.
    // The token endpoint's grant was reached: refresh tokens were looked up and refused (or exchanged).
    const reached: Record<string, string[]> = {
      '/oauth/token': ['invalid_request', 'unsupported_grant_type', 'invalid_grant', 'invalid_client'],
      '/oauth/introspect': ['invalid_request', 'invalid_client'],
      '/oauth/revoke': ['invalid_request', 'invalid_client'],
    };
    if (oauth) expect([...oauthErrors]).toEqual(expect.arrayContaining(reached[route.path]!));
    // Introspection answered past the client's authentication (active or not).
    if (route.path === '/oauth/introspect') expect(counts.get(200)).toBeGreaterThan(0);
    if (media === FORM_MEDIA && !oauth) expect(formsRendered).toBeGreaterThan(0);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeBefore);
  });

  it('the admin can still sign in and the service is still ready after the run', async () => {
    expect((await app.request('GET', '/readyz')).status).toBe(200);
    expect(await app.signIn()).toEqual(expect.any(String));
  });
});
