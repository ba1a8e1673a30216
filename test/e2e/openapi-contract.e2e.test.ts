import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { asValue } from 'awilix';
import { servedOpenApiDocument } from '../../scripts/served-openapi';
import { CapturingMailer } from '../support/capturing-mailer';
import { CommandError, run } from '../support/commands';
import { ensureOpenApiGenerator, generateClient, OPENAPI_GENERATOR_VERSION } from '../support/openapi-generator';
import { oathtoolTotp } from '../support/oathtool';
import { SoftAuthenticator } from '../support/soft-authenticator';
import { startTestApp, type TestApp } from '../support/test-app';
import { SEEDED_ROLES } from '../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';

/**
 * The OpenAPI document is the server: `npm run lint` lints the document served at /docs/json, every
 * answer `app.request` gets in any e2e suite is checked against it (test/support/openapi-contract.ts),
 * and here every operation it declares is called, so none can be documented and never answered.
 */
describe('the OpenAPI document is the server', () => {
  let app: TestApp;
  let token: string;
  const mailer = new CapturingMailer();
  // Every key type the service signs with is in its key set: ES256 the current key, RS256 and EdDSA retired.
  const pem = (key: KeyObject) => key.export({ format: 'pem', type: key.type === 'private' ? 'pkcs8' : 'spki' }).toString();
  const current = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const retired = [generateKeyPairSync('rsa', { modulusLength: 2048 }), generateKeyPairSync('ed25519')];

  beforeAll(async () => {
    const keys = {
      JWT_PRIVATE_KEY: pem(current.privateKey),
      JWT_PUBLIC_KEY: pem(current.publicKey),
      JWT_PREVIOUS_PUBLIC_KEYS: retired.map((pair) => pem(pair.publicKey)).join('\n'),
    };
    app = await startTestApp(keys, { mailer: asValue(mailer) });
    token = await app.signIn();
  });
  afterAll(async () => app?.close());

  const mailTo = (email: string, before: number) => mailer.tokenSentTo(email, before);

  async function invite(email: string): Promise<{ id: string; secret: string }> {
    const before = mailer.sent.length;
    const response = await app.request('POST', '/v1/users/invite', { token, json: { email } });
    expect(response.status).toBe(201);
    return { id: response.headers.get('location')!.replace('/v1/users/', ''), secret: await mailTo(email, before) };
  }

  it('serves at /docs/json the very document `npm run lint` lints, and the one answers are checked against', async () => {
    const served = await app.request('GET', '/docs/json');
    expect(served.status).toBe(200);
    expect(served.body).toEqual(JSON.parse(JSON.stringify(app.contract.document)));
    const linted = JSON.parse(await servedOpenApiDocument({ PUBLIC_URL: app.api.container.cradle.config.publicUrl }));
    expect(linted).toEqual(served.body);
    expect(served.body.servers).toEqual([{ url: app.api.container.cradle.config.publicUrl, description: expect.any(String) }]);
  });

  it('gives every operation a stable operationId and declared security: none on the public ones, a bearer token elsewhere', () => {
    const doc = app.contract.document as unknown as { paths: Record<string, Record<string, { operationId: string; security: unknown[] }>> };
    const security = Object.fromEntries(
      Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => [op.operationId, op.security.length === 0 ? 'public' : 'bearer'])),
    );
    expect(security).toEqual({
      signIn: 'public',
      signInWithSecondFactor: 'public',
      passkeySignInOptions: 'public',
      refreshSession: 'public',
      acceptInvitation: 'public',
      showAcceptInvitationPage: 'public',
      submitAcceptInvitationForm: 'public',
      requestPasswordReset: 'public',
      confirmPasswordReset: 'public',
      showPasswordResetPage: 'public',
      submitPasswordResetForm: 'public',
      showAccountSecurityPage: 'public',
      getJwks: 'public',
      getAuthorizationServerMetadata: 'public',
      getOpenIdConfiguration: 'public',
      requestToken: 'public',
      introspectToken: 'public',
      revokeToken: 'public',
      getLiveness: 'public',
      getReadiness: 'public',
      getMetrics: 'public',
      signOut: 'bearer',
      listUsers: 'bearer',
      inviteUser: 'bearer',
      listPermissions: 'bearer',
      resendInvitation: 'bearer',
      revokeInvitation: 'bearer',
      getUser: 'bearer',
      updateUser: 'bearer',
      deactivateUser: 'bearer',
      reactivateUser: 'bearer',
      deleteUser: 'bearer',
      getOwnAccount: 'bearer',
      changeOwnPassword: 'bearer',
      listOwnFactors: 'bearer',
      startTotpEnrollment: 'bearer',
      confirmTotpEnrollment: 'bearer',
      removeOwnTotp: 'bearer',
      regenerateRecoveryCodes: 'bearer',
      resetUserMfa: 'bearer',
      startPasskeyRegistration: 'bearer',
      registerPasskey: 'bearer',
      renamePasskey: 'bearer',
      removeOwnPasskey: 'bearer',
      listRoles: 'bearer',
      getRole: 'bearer',
      createRole: 'bearer',
      updateRole: 'bearer',
      deleteRole: 'bearer',
      listServiceAccounts: 'bearer',
      createServiceAccount: 'bearer',
      getServiceAccount: 'bearer',
      updateServiceAccount: 'bearer',
      deleteServiceAccount: 'bearer',
      listServiceAccountSecrets: 'bearer',
      addServiceAccountSecret: 'bearer',
      deleteServiceAccountSecret: 'bearer',
      replaceServiceAccountKeys: 'bearer',
      listAuditEvents: 'bearer',
      exportAuditEvents: 'bearer',
    });
  });

  it('answers the audit trail (#23) as documented: a page with its cursor, the NDJSON export, errors as problem+json', async () => {
    // Two entries at least: the sign-in of beforeAll, and this refusal.
    expect((await app.request('POST', '/v1/auth/signin', { json: { username: 'nobody-at-all', password: 'whatever it is' } })).status).toBe(401);
    const page = await app.request('GET', '/v1/audit-events?page_size=1', { token });
    expect([page.status, typeof page.body.next]).toEqual([200, 'string']);
    expect((await app.request('GET', `/v1/audit-events?page_size=1&cursor=${page.body.next}`, { token })).status).toBe(200);
    expect((await app.request('GET', '/v1/audit-events?page_size=101', { token })).status).toBe(400);
    const exported = await app.request('GET', '/v1/audit-events/export?from=2000-01-01T00:00:00Z', { token });
    expect([exported.status, exported.text.length > 0]).toEqual([200, true]);
    expect((await app.request('GET', '/v1/audit-events/export', { token })).status).toBe(400);
  });

  it('answers the probes, the key set and the page as documented', async () => {
    expect((await app.request('GET', '/healthz')).status).toBe(200);
    expect((await app.request('GET', '/readyz')).status).toBe(200);
    expect((await app.request('GET', '/.well-known/jwks.json')).body.keys.length).toBeGreaterThan(0);
    const unknown = await app.request('GET', '/invitations/accept?token=no-such-token');
    expect({ status: unknown.status, type: unknown.headers.get('content-type') }).toEqual({ status: 404, type: expect.stringMatching(/^text\/html/) });
    const { secret } = await invite('page@example.com');
    expect((await app.request('GET', `/invitations/accept?token=${secret}`)).status).toBe(200);
    // Over the limit of the token parameter: the page route's 400 is problem+json, as the document says.
    expect((await app.request('GET', `/invitations/accept?token=${'x'.repeat(201)}`)).status).toBe(400);
  });

  it('answers the page’s form, posted without JavaScript, with pages as documented', async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const post = (fields: Record<string, string>) => app.request('POST', '/invitations/accept', { body: new URLSearchParams(fields).toString(), headers: form });
    const { secret } = await invite('form@example.com');
    const fields = { token: secret, name: 'Form User', username: 'form.user', password: 'a long enough passphrase' };
    const answers = [
      await post({ ...fields, password: 'short' }),
      await post({ ...fields, username: 'admin' }),
      await post({ ...fields, token: 'no-such-token' }),
      await post(fields),
      await post(fields),
    ];
    expect(answers.map((a) => [a.status, a.headers.get('content-type')])).toEqual(
      [400, 409, 404, 200, 410].map((status) => [status, 'text/html; charset=utf-8']),
    );
    const json = await app.request('POST', '/invitations/accept', { json: fields });
    expect({ status: json.status, type: json.headers.get('content-type') }).toEqual({ status: 415, type: expect.stringMatching(/^application\/problem\+json/) });
  });

  it('answers the password-reset operations (#10) as documented: the request, its page, the form and the confirmation', async () => {
    const before = mailer.sent.length;
    const requested = await app.request('POST', '/v1/auth/password-reset', { json: { email: 'admin@example.com' } });
    expect(requested.status).toBe(202);
    const secret = await mailTo('admin@example.com', before);
    expect((await app.request('GET', `/password-reset?token=${secret}`)).status).toBe(200);
    expect((await app.request('GET', '/password-reset?token=no-such-token')).status).toBe(404);
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const post = (fields: Record<string, string>) => app.request('POST', '/password-reset', { body: new URLSearchParams(fields).toString(), headers: form });
    expect((await post({ token: secret, password: 'short' })).status).toBe(400);
    expect((await post({ token: 'no-such-token', password: 'a long enough passphrase' })).status).toBe(404);
    const confirm = (json: unknown) => app.request('POST', '/v1/auth/password-reset/confirm', { json });
    expect((await confirm({ token: 'no-such-token', password: 'a long enough passphrase' })).status).toBe(404);
    // Back to the admin's own password, so the other cases here still sign in with it.
    expect((await confirm({ token: secret, password: 'admin-password-123' })).status).toBe(204);
    expect((await confirm({ token: secret, password: 'admin-password-123' })).status).toBe(410);
    token = await app.signIn();
  });

  it('serves /metrics on the management listener as the document says, and not on the public one', async () => {
    const response = await fetch(`${app.api.metricsUrl}/metrics`);
    const body = await response.text();
    const answer = { method: 'GET', target: '/metrics', status: response.status, contentType: response.headers.get('content-type'), body };
    expect(app.contract.check(answer, 'management')).toEqual([]);
    expect(app.contract.operationFor('GET', '/metrics', 'public')).toBeUndefined();
    expect((await app.request('GET', '/metrics')).status).toBe(404);
  });

  it('answers the API operations as documented, errors as problem+json', async () => {
    expect((await app.request('GET', '/v1/users', { token })).status).toBe(200);
    expect((await app.request('GET', '/v1/permissions?filter[group]=users', { token })).status).toBe(200);
    expect((await app.request('GET', '/v1/users')).status).toBe(401);
    const { id, secret } = await invite('joiner@example.com');
    const before = mailer.sent.length;
    expect((await app.request('POST', `/v1/users/${id}/invitation/resend`, { token })).status).toBe(202);
    const fresh = await mailTo('joiner@example.com', before);
    expect(fresh).not.toBe(secret);
    const accepted = await app.request('POST', '/v1/invitations/accept', {
      json: { token: fresh, name: 'Jo Iner', username: 'joiner', password: 'a long enough passphrase' },
    });
    expect(accepted.status).toBe(200);
    expect((await app.request('DELETE', `/v1/users/${id}/invitation`, { token })).status).toBe(409);
    const pending = await invite('leaver@example.com');
    expect((await app.request('DELETE', `/v1/users/${pending.id}/invitation`, { token })).status).toBe(204);
    const own = await app.signIn('joiner', 'a long enough passphrase');
    expect((await app.request('POST', '/v1/auth/signout', { token: own })).status).toBe(204);
  });

  it('answers the own account and refresh operations as documented (#10)', async () => {
    const signedIn = await app.request('POST', '/v1/auth/signin', { json: { username: 'admin', password: 'admin-password-123' } });
    const refreshed = await app.request('POST', '/v1/auth/refresh', { json: { refreshToken: signedIn.body.refreshToken } });
    expect(refreshed.status).toBe(200);
    expect((await app.request('POST', '/v1/auth/refresh', { json: { refreshToken: 'x'.repeat(43) } })).status).toBe(401);
    expect((await app.request('GET', '/v1/me', { token: refreshed.body.accessToken })).status).toBe(200);
    const wrong = { current_password: 'not the password', new_password: 'a long enough passphrase' };
    expect((await app.request('POST', '/v1/me/password', { token: refreshed.body.accessToken, json: wrong })).status).toBe(400);
  });

  it('answers the second-factor operations as documented (#24)', async () => {
    await app.addJoinedUser({ username: 'second-factor', password: 'second-factor-password', email: 'second-factor@example.com', role: { id: SEEDED_ROLES.member, name: 'member', permissions: [] } });
    const own = await app.signIn('second-factor', 'second-factor-password');
    const started = await app.request('POST', '/v1/me/mfa/totp', { token: own });
    expect(started.status).toBe(201);
    expect((await app.request('POST', '/v1/me/mfa/totp/confirm', { token: own, json: { code: 'abcdef' } })).status).toBe(400);
    expect((await app.request('POST', '/v1/me/mfa/totp/confirm', { token: own, json: { code: oathtoolTotp(started.body.secret) } })).status).toBe(200);
    expect((await app.request('GET', '/v1/me/mfa', { token: own })).status).toBe(200);
    const regenerated = await app.request('POST', '/v1/me/mfa/recovery-codes', { token: own });
    expect(regenerated.status).toBe(200);
    const challenged = await app.request('POST', '/v1/auth/signin', { json: { username: 'second-factor', password: 'second-factor-password' } });
    expect(challenged.status).toBe(401);
    const recovery = { mfa_token: challenged.body.mfa_token, recovery_code: regenerated.body.recovery_codes[0] };
    expect((await app.request('POST', '/v1/auth/signin/mfa', { json: recovery })).status).toBe(200);
    expect((await app.request('POST', '/v1/auth/signin/mfa', { json: { mfa_token: 'x'.repeat(43), code: '123456' } })).status).toBe(401);
    expect((await app.request('POST', '/v1/auth/signin/mfa', { json: { mfa_token: 'x' } })).status).toBe(400);
    expect((await app.request('DELETE', '/v1/me/mfa/totp', { token: own, json: { password: 'second-factor-password' } })).status).toBe(204);
    const user = await app.request('GET', '/v1/me', { token: own });
    expect((await app.request('DELETE', `/v1/users/${user.body._id}/mfa`, { token })).status).toBe(409);
  });

  it('answers the passkey operations and the account-security page as documented (#24)', async () => {
    await app.addJoinedUser({ username: 'passkey-holder', password: 'passkey-holder-password', email: 'passkey-holder@example.com', role: { id: SEEDED_ROLES.member, name: 'member', permissions: [] } });
    const own = await app.signIn('passkey-holder', 'passkey-holder-password');
    const authenticator = new SoftAuthenticator(app.api.container.cradle.config.publicUrl);
    const options = await app.request('POST', '/v1/me/mfa/webauthn/registration-options', { token: own });
    expect(options.status).toBe(200);
    const registered = await app.request('POST', '/v1/me/mfa/webauthn', { token: own, json: { name: 'Key', response: authenticator.create(options.body) } });
    expect(registered.status).toBe(201);
    expect((await app.request('POST', '/v1/me/mfa/webauthn', { token: own, json: { response: authenticator.create(options.body) } })).status).toBe(400);
    expect((await app.request('PATCH', `/v1/me/mfa/webauthn/${registered.body.id}`, { token: own, json: { name: 'Renamed' } })).status).toBe(200);
    const challenged = await app.request('POST', '/v1/auth/signin', { json: { username: 'passkey-holder', password: 'passkey-holder-password' } });
    expect(challenged.body.webauthn_options).toBeDefined();
    expect((await app.request('POST', '/v1/auth/signin/mfa/webauthn-options', { json: { mfa_token: challenged.body.mfa_token } })).status).toBe(200);
    expect((await app.request('POST', '/v1/auth/signin/mfa/webauthn-options', { json: { mfa_token: 'x'.repeat(43) } })).status).toBe(401);
    expect((await app.request('POST', '/v1/auth/signin/mfa', { json: { mfa_token: challenged.body.mfa_token, webauthn: authenticator.get(challenged.body.webauthn_options) } })).status).toBe(200);
    expect((await app.request('DELETE', `/v1/me/mfa/webauthn/${registered.body.id}`, { token: own, json: { password: 'wrong-password-here' } })).status).toBe(400);
    expect((await app.request('DELETE', `/v1/me/mfa/webauthn/${registered.body.id}`, { token: own, json: { password: 'passkey-holder-password' } })).status).toBe(204);
    expect((await app.request('DELETE', `/v1/me/mfa/webauthn/${registered.body.id}`, { token: own, json: { password: 'passkey-holder-password' } })).status).toBe(404);
    expect((await app.request('GET', '/account/security')).status).toBe(200);
  });

  it('answers discovery and the token endpoint (#21) as documented: OAuth’s formats, not problem+json', async () => {
    expect((await app.request('GET', '/.well-known/oauth-authorization-server')).status).toBe(200);
    expect((await app.request('GET', '/.well-known/openid-configuration')).status).toBe(200);
    const signedIn = await app.request('POST', '/v1/auth/signin', { json: { username: 'admin', password: 'admin-password-123' } });
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const granted = await app.request('POST', '/oauth/token', { body: `grant_type=refresh_token&refresh_token=${signedIn.body.refreshToken}`, headers: form });
    expect(granted.status).toBe(200);
    const refused = await app.request('POST', '/oauth/token', { body: 'grant_type=password', headers: form });
    expect({ status: refused.status, type: refused.headers.get('content-type'), error: refused.body.error }).toEqual({
      status: 400,
      type: expect.stringMatching(/^application\/json/),
      error: 'unsupported_grant_type',
    });
    // Revocation (RFC 7009) and introspection (RFC 7662): an unknown token is revoked with a 200; a caller without
    // client credentials is refused introspection with OAuth's invalid_client.
    expect((await app.request('POST', '/oauth/revoke', { body: `token=${'x'.repeat(43)}`, headers: form })).status).toBe(200);
    const anonymous = await app.request('POST', '/oauth/introspect', { body: `token=${'x'.repeat(43)}`, headers: form });
    expect({ status: anonymous.status, error: anonymous.body.error }).toEqual({ status: 401, error: 'invalid_client' });
  });

  it('answers the administration of one user as documented: the user with its ETag, 204 on delete, errors as problem+json', async () => {
    const { id } = await invite('administered@example.com');
    const read = await app.request('GET', `/v1/users/${id}`, { token });
    expect({ status: read.status, etag: read.headers.get('etag'), status_field: read.body.status }).toEqual({ status: 200, etag: '"1"', status_field: 'pending' });
    const patched = await app.request('PATCH', `/v1/users/${id}`, { token, json: { name: 'Ad Ministered' }, headers: { 'if-match': '"1"' } });
    expect({ status: patched.status, etag: patched.headers.get('etag') }).toEqual({ status: 200, etag: '"2"' });
    expect((await app.request('PATCH', `/v1/users/${id}`, { token, json: { name: 'Stale' }, headers: { 'if-match': '"1"' } })).status).toBe(409);
    expect((await app.request('POST', `/v1/users/${id}/deactivate`, { token })).body.status).toBe('deactivated');
    expect((await app.request('POST', `/v1/users/${id}/reactivate`, { token })).body.status).toBe('pending');
    expect((await app.request('DELETE', `/v1/users/${id}`, { token })).status).toBe(204);
    expect((await app.request('GET', `/v1/users/${id}`, { token })).status).toBe(404);
    expect((await app.request('GET', `/v1/users/${'x'.repeat(37)}`, { token })).status).toBe(400);
  });

  it('answers the administration of roles as documented: created with its ETag, changed, refused while held, deleted', async () => {
    const listed = await app.request('GET', '/v1/roles', { token });
    expect(listed.status).toBe(200);
    const member = (listed.body.roles as { _id: string; name: string }[]).find((role) => role.name === 'member')!;
    expect((await app.request('GET', `/v1/roles/${member._id}`, { token })).status).toBe(200);
    expect((await app.request('DELETE', `/v1/roles/${member._id}`, { token })).status).toBe(409);
    const created = await app.request('POST', '/v1/roles', { token, json: { name: 'auditor', permissions: ['users:read'] } });
    expect(created.status).toBe(201);
    const id = created.body._id as string;
    const changed = await app.request('PATCH', `/v1/roles/${id}`, { token, json: { permissions: ['users:read', 'permissions:read'] }, headers: { 'if-match': created.headers.get('etag')! } });
    expect(changed.status).toBe(200);
    expect((await app.request('POST', '/v1/roles', { token, json: { name: 'auditor', permissions: [] } })).status).toBe(409);
    expect((await app.request('DELETE', `/v1/roles/${id}`, { token })).status).toBe(204);
    expect((await app.request('GET', `/v1/roles/${id}`, { token })).status).toBe(404);
  });

  it('answers the administration of service accounts as documented: created with its secret, re-keyed, rotated, deleted', async () => {
    const created = await app.request('POST', '/v1/service-accounts', { token, json: { name: 'contract-sa', role: 'member' } });
    expect([created.status, typeof created.body.client_secret]).toEqual([201, 'string']);
    const id = created.body._id as string;
    expect((await app.request('GET', '/v1/service-accounts', { token })).status).toBe(200);
    expect((await app.request('GET', `/v1/service-accounts/${id}`, { token })).headers.get('etag')).toBe('"1"');
    expect((await app.request('PATCH', `/v1/service-accounts/${id}`, { token, json: { description: 'Reads' }, headers: { 'if-match': '"1"' } })).status).toBe(200);
    const key = { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo', kid: 'k1' };
    expect((await app.request('PUT', `/v1/service-accounts/${id}/keys`, { token, json: { keys: [key] } })).body.keys).toEqual([key]);
    const added = await app.request('POST', `/v1/service-accounts/${id}/secrets`, { token, json: { expires_in: 3600 } });
    expect(added.status).toBe(201);
    expect((await app.request('GET', `/v1/service-accounts/${id}/secrets`, { token })).body.secrets).toHaveLength(2);
    expect((await app.request('DELETE', `/v1/service-accounts/${id}/secrets/${added.body._id}`, { token })).status).toBe(204);
    expect((await app.request('DELETE', `/v1/service-accounts/${id}`, { token })).status).toBe(204);
    expect((await app.request('GET', `/v1/service-accounts/${id}`, { token })).status).toBe(404);
  });

  /**
   * #22: OpenAPI Generator turned the key set's `oneOf` into types keeping only `kty`, `crv` and `alg`, so a
   * generated client dropped `kid`, `use` and the key material without a word. Here the document this app
   * serves is fed to the generator the consumers use (test/support/openapi-generator.ts), the
   * `typescript-fetch` client compiled with this repository's TypeScript, and the key set read through it.
   */
  describe(`a client generated from /docs/json by OpenAPI Generator ${OPENAPI_GENERATOR_VERSION}`, () => {
    let work: string;
    let client: { AuthApi: new (configuration: unknown) => { getJwks(): Promise<{ keys: object[] }> }; Configuration: new (parameters: object) => unknown };
    let typeErrors: string;
    let javaSources: string;

    beforeAll(async () => {
      work = mkdtempSync(path.join(os.tmpdir(), 'ac-generated-client-'));
      const jar = await ensureOpenApiGenerator(); // the first run on a machine may fetch it from Maven Central
      const spec = path.join(work, 'openapi.json');
      writeFileSync(spec, (await app.request('GET', '/docs/json')).text);
      javaSources = path.join(work, 'java');
      await Promise.all([
        generateClient(jar, spec, 'typescript-fetch', path.join(work, 'typescript-fetch')),
        generateClient(jar, spec, 'java', javaSources, ['--library', 'native', '--global-property', 'models,modelDocs=false,modelTests=false']),
      ]);
      // A consumer reading every member through the client's own types: a member the model lost fails to compile.
      writeFileSync(
        path.join(work, 'consumer.ts'),
        [
          "import { AuthApi } from './typescript-fetch';",
          "type Key = Awaited<ReturnType<AuthApi['getJwks']>>['keys'][number];",
          'export const members = (key: Key) => [key.kty, key.kid, key.alg, key.use, key.crv, key.x, key.y, key.n, key.e];',
          '',
        ].join('\n'),
      );
      const compilerOptions = { target: 'ES2022', module: 'commonjs', moduleResolution: 'node', lib: ['ES2022', 'DOM'], strict: true, skipLibCheck: true, types: [], outDir: 'out', rootDir: '.' };
      writeFileSync(path.join(work, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['typescript-fetch/**/*.ts', 'consumer.ts'] }));
      // tsc emits even when a file does not type-check: the client runs below, its type errors are a case of their own.
      const tsc = path.resolve(__dirname, '../../node_modules/typescript/bin/tsc');
      typeErrors = await run(process.execPath, [tsc, '-p', path.join(work, 'tsconfig.json')], { timeoutMs: 120_000 }).then(
        () => '',
        (error: unknown) => (error instanceof CommandError ? error.output || error.message : String(error)),
      );
      client = require(path.join(work, 'out/typescript-fetch/index.js')); // eslint-disable-line @typescript-eslint/no-require-imports
    }, 900_000);
    afterAll(() => work && rmSync(work, { recursive: true, force: true }));

    /** The members a key has, as a client shows them (a generated model sets every member it knows, absent ones undefined). */
    const members = (key: object) => Object.keys(key).filter((name) => (key as Record<string, unknown>)[name] !== undefined).sort();

    it('reads every key of the set whole through its API class: kid, alg, use, kty and the key material of EC, RSA and OKP keys', async () => {
      const served = (await app.request('GET', '/.well-known/jwks.json')).body.keys as object[];
      const read = await new client.AuthApi(new client.Configuration({ basePath: app.url, fetchApi: fetch })).getJwks();
      expect(read.keys.map(members)).toEqual([
        ['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y'],
        ['alg', 'e', 'kid', 'kty', 'n', 'use'],
        ['alg', 'crv', 'kid', 'kty', 'use', 'x'],
      ]);
      expect(read.keys.map((key) => Object.fromEntries(members(key).map((name) => [name, (key as Record<string, unknown>)[name]])))).toEqual(served);
    });

    it('types every member in the typescript-fetch model: a consumer reading them compiles', () => {
      expect(typeErrors).toBe('');
    });

    it('declares every member in the java (native) model of the keys', () => {
      const models = path.join(javaSources, 'src/main/java/org/openapitools/client/model');
      const keyModel = /private List<(\w+)> keys/.exec(readFileSync(path.join(models, 'JwkSet.java'), 'utf8'))?.[1];
      expect(readdirSync(models)).toContain(`${keyModel}.java`);
      const fields = [...readFileSync(path.join(models, `${keyModel}.java`), 'utf8').matchAll(/^\s*private\s+[\w<>, ]+\s+(\w+)\s*(?:=[^;]*)?;/gm)].map((m) => m[1]);
      expect(fields).toEqual(expect.arrayContaining(['kty', 'kid', 'alg', 'use', 'crv', 'x', 'y', 'n', 'e']));
    });
  });

  describe('a body field the operation does not name', () => {
    it('is refused with 400 naming it: an invitation with "admin": true creates no one', async () => {
      const response = await app.request('POST', '/v1/users/invite', { token, json: { email: 'mass@example.com', admin: true } });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ field: 'admin', message: 'is not a field of this request' }] });
      const users = await app.request('GET', '/v1/users?page_size=100', { token });
      expect(users.body.users.map((u: { email: string }) => u.email)).not.toContain('mass@example.com');
    });

    it('is refused on sign-in and on accepting, before any credential is looked at', async () => {
      const signIn = await app.request('POST', '/v1/auth/signin', { json: { username: 'admin', password: 'wrong password here', remember: true } });
      expect(signIn.status).toBe(400);
      expect(signIn.body.errors).toEqual([{ field: 'remember', message: 'is not a field of this request' }]);
      const { secret } = await invite('strict@example.com');
      const body = { token: secret, name: 'Strict', username: 'strict', password: 'a long enough passphrase' };
      const refused = await app.request('POST', '/v1/invitations/accept', { json: { ...body, role: 'admin' } });
      expect(refused.status).toBe(400);
      expect(refused.body.errors).toEqual([{ field: 'role', message: 'is not a field of this request' }]);
      // The refusal consumed nothing: the same link still joins.
      expect((await app.request('POST', '/v1/invitations/accept', { json: body })).status).toBe(200);
    });

    it('is what the document says: every request body forbids other fields', () => {
      const doc = app.contract.document as unknown as {
        paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { additionalProperties?: unknown } }> } }>>;
      };
      const bodies = Object.values(doc.paths).flatMap((item) => Object.values(item).flatMap((op) => (op.requestBody ? Object.values(op.requestBody.content) : [])));
      // But the OAuth endpoints' forms (#21): RFC 6749 §3.2 says unknown parameters are ignored (RFC 7009 and 7662 too).
      const oauth = ['/oauth/token', '/oauth/revoke', '/oauth/introspect'].flatMap((path) => Object.values(doc.paths[path]!.post!.requestBody!.content));
      expect(bodies.length).toBe(26); // 22, and the passkeys' four (#24)
      for (const media of bodies) if (!oauth.includes(media)) expect(media.schema.additionalProperties).toBe(false);
    });
  });

  it('leaves no operation of the document uncalled (a new operation needs a call here)', () => {
    const called = new Set([...app.contract.seen].map((answer) => answer.split(' ')[0]));
    called.add('getMetrics'); // checked above on the management listener, which is not this app's public port
    expect([...app.contract.operationIds()].filter((id) => !called.has(id))).toEqual([]);
  });
});
