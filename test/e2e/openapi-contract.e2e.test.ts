import { asValue } from 'awilix';
import { servedOpenApiDocument } from '../../scripts/served-openapi';
import { CapturingMailer } from '../support/capturing-mailer';
import { oathtoolTotp } from '../support/oathtool';
import { SoftAuthenticator } from '../support/soft-authenticator';
import { everyKeyTypeSettings } from '../support/every-key-type';
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
  beforeAll(async () => {
    // Every key type the service signs with is in its key set: ES256 the current key, RS256 and EdDSA retired.
    app = await startTestApp(everyKeyTypeSettings(), { mailer: asValue(mailer) });
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
      startConsoleSession: 'public',
      refreshConsoleSession: 'public',
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
      endConsoleSession: 'bearer',
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
    expect((await app.request('POST', '/v1/me/mfa/totp', { token: own, json: { password: 'not the password' } })).status).toBe(400);
    const started = await app.request('POST', '/v1/me/mfa/totp', { token: own, json: { password: 'second-factor-password' } });
    expect(started.status).toBe(201);
    expect((await app.request('POST', '/v1/me/mfa/totp/confirm', { token: own, json: { code: 'abcdef' } })).status).toBe(400);
    expect((await app.request('POST', '/v1/me/mfa/totp/confirm', { token: own, json: { code: oathtoolTotp(started.body.secret) } })).status).toBe(200);
    expect((await app.request('GET', '/v1/me/mfa', { token: own })).status).toBe(200);
    expect((await app.request('POST', '/v1/me/mfa/recovery-codes', { token: own, json: {} })).status).toBe(400);
    const regenerated = await app.request('POST', '/v1/me/mfa/recovery-codes', { token: own, json: { password: 'second-factor-password' } });
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
    expect((await app.request('POST', '/v1/me/mfa/webauthn/registration-options', { token: own, json: { code: '000000' } })).status).toBe(400);
    const options = await app.request('POST', '/v1/me/mfa/webauthn/registration-options', { token: own, json: { password: 'passkey-holder-password' } });
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

  it('answers the console session (#25) as documented: the cookie set, exchanged, refused, cleared', async () => {
    const console = { 'x-console-session': '1' };
    const { refreshToken } = (await app.request('POST', '/v1/auth/signin', { json: { username: 'admin', password: 'admin-password-123' } })).body;
    const started = await app.request('POST', '/v1/auth/console-session', { json: { refreshToken }, headers: console });
    const cookie = (started.headers.get('set-cookie') ?? '').split(';')[0]!;
    const renewed = await app.request('POST', '/v1/auth/console-session/refresh', { headers: { ...console, cookie } });
    expect([started.status, renewed.status]).toEqual([200, 200]);
    expect((await app.request('POST', '/v1/auth/console-session/refresh', { headers: console })).status).toBe(401);
    expect((await app.request('POST', '/v1/auth/console-session/refresh', { headers: { ...console, origin: 'https://elsewhere.example' } })).status).toBe(403);
    expect((await app.request('POST', '/v1/auth/console-session', { json: { refreshToken }, headers: {} })).status).toBe(400);
    expect((await app.request('DELETE', '/v1/auth/console-session', { token: renewed.body.accessToken })).status).toBe(204);
    token = await app.signIn();
  });

  it('leaves no operation of the document uncalled (a new operation needs a call here)', () => {
    const called = new Set([...app.contract.seen].map((answer) => answer.split(' ')[0]));
    called.add('getMetrics'); // checked above on the management listener, which is not this app's public port
    expect([...app.contract.operationIds()].filter((id) => !called.has(id))).toEqual([]);
  });
});
