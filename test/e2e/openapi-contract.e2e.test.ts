import { asValue } from 'awilix';
import { servedOpenApiDocument } from '../../scripts/served-openapi';
import { CapturingMailer } from '../support/capturing-mailer';
import { startTestApp, type TestApp } from '../support/test-app';

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
    app = await startTestApp({}, { mailer: asValue(mailer) });
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
      refreshSession: 'public',
      acceptInvitation: 'public',
      showAcceptInvitationPage: 'public',
      submitAcceptInvitationForm: 'public',
      requestPasswordReset: 'public',
      confirmPasswordReset: 'public',
      showPasswordResetPage: 'public',
      submitPasswordResetForm: 'public',
      getJwks: 'public',
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
      listRoles: 'bearer',
      getRole: 'bearer',
      createRole: 'bearer',
      updateRole: 'bearer',
      deleteRole: 'bearer',
    });
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
      expect(bodies.length).toBe(12);
      for (const media of bodies) expect(media.schema.additionalProperties).toBe(false);
    });
  });

  it('leaves no operation of the document uncalled (a new operation needs a call here)', () => {
    const called = new Set([...app.contract.seen].map((answer) => answer.split(' ')[0]));
    called.add('getMetrics'); // checked above on the management listener, which is not this app's public port
    expect([...app.contract.operationIds()].filter((id) => !called.has(id))).toEqual([]);
  });
});
