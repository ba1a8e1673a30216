import { asValue } from 'awilix';
import { SEEDED_ROLES } from '../../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { CapturingMailer } from '../../support/capturing-mailer';
import { ADMIN, type RequestOptions, startTestApp, type TestApp, type TestResponse } from '../../support/test-app';

/**
 * The audit trail's matrix (#23): each route and outcome, sent with a request id of its own, and exactly the
 * entries (action, outcome, code) that request wrote, found by that id. Then every secret this suite handled
 * (passwords, tokens, client secrets, links' tokens, keys) is looked for in every entry, and none is there.
 */
type Expected = [action: string, outcome: 'success' | 'failure', code: string | null][];

const FORM = 'application/x-www-form-urlencoded';
const MEMBER = { id: SEEDED_ROLES.member, name: 'member', permissions: [] };

describe('audit matrix: one entry per route and outcome (#23)', () => {
  const mailer = new CapturingMailer();
  let app: TestApp;
  let admin: string;
  let counter = 0;
  const secrets = new Set<string>([ADMIN.password]);
  const keep = <T extends string>(secret: T): T => (secrets.add(secret), secret);
  const unique = (prefix: string) => `${prefix}${++counter}`;

  beforeAll(async () => {
    app = await startTestApp({ LOCKOUT_THRESHOLD: '2', ADDRESS_RATE_LIMIT: '0', INVITE_RATE_LIMIT: '0', PASSWORD_RESET_RATE_LIMIT: '0' }, { mailer: asValue(mailer) });
    admin = keep(await app.signIn());
  });
  afterAll(async () => app?.close());

  /** Sends the request under a fresh request id and answers it with the entries that request wrote (waiting for late ones). */
  const audited = async (method: string, path: string, options: RequestOptions, expected: Expected): Promise<TestResponse> => {
    const requestId = unique('audit-matrix-');
    const response = await app.request(method, path, { ...options, headers: { ...options.headers, 'x-request-id': requestId } });
    const sorted = (rows: Expected) => rows.map((r) => r.join(' ')).sort();
    let seen: Expected = [];
    for (const deadline = Date.now() + 5000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
      const page = await app.request('GET', `/v1/audit-events?request_id=${requestId}`, { token: admin });
      seen = page.body.audit_events.map((e: { action: string; outcome: 'success' | 'failure'; code: string | null }) => [e.action, e.outcome, e.code]);
      if (seen.length >= expected.length) break;
    }
    expect({ route: `${method} ${path} → ${response.status}`, entries: sorted(seen) }).toEqual({ route: `${method} ${path} → ${response.status}`, entries: sorted(expected) });
    return response;
  };
  const person = async (username = unique('person')) => {
    const password = keep(`${username}-long-password`);
    const user = await app.addJoinedUser({ username, password, email: `${username}@example.com`, role: MEMBER });
    return { user, username, password };
  };
  const invite = async (email: string) => {
    const before = mailer.sent.length;
    const response = await audited('POST', '/v1/users/invite', { token: admin, json: { email } }, [['invitation.issued', 'success', null]]);
    return { id: response.headers.get('location')!.replace('/v1/users/', ''), token: keep(await mailer.tokenSentTo(email, before)) };
  };

  it('sign-in, lockout, sign-out and refresh', async () => {
    const { user, username, password } = await person();
    const signin = (pw: string, expected: Expected) => audited('POST', '/v1/auth/signin', { json: { username, password: keep(pw) } }, expected);
    const ok = await signin(password, [['auth.signin_succeeded', 'success', null]]);
    const refresh = keep(ok.body.refreshToken as string);
    keep(ok.body.accessToken as string);
    await audited('POST', '/v1/auth/signin', { json: { username: unique('nobody'), password: keep('nobody-password-x') } }, [['auth.signin_failed', 'failure', 'unknown_user']]);

    const rotated = await audited('POST', '/v1/auth/refresh', { json: { refreshToken: refresh } }, []);
    expect(rotated.status).toBe(200);
    keep(rotated.body.refreshToken as string);
    keep(rotated.body.accessToken as string);
    await audited('POST', '/v1/auth/refresh', { json: { refreshToken: refresh } }, [['auth.refresh_reuse_detected', 'failure', 'family_revoked']]);

    const token = keep((await signin(password, [['auth.signin_succeeded', 'success', null]])).body.accessToken as string);
    await audited('POST', '/v1/auth/signout', { token }, [['auth.signed_out', 'success', null]]);

    await signin('wrong-password-1', [['auth.signin_failed', 'failure', 'wrong_password']]);
    await signin('wrong-password-2', [['auth.signin_failed', 'failure', 'wrong_password'], ['auth.locked_out', 'success', 'threshold_reached']]);
    await signin(password, [['auth.signin_failed', 'failure', 'locked']]);

    const { user: later } = await person();
    await audited('POST', `/v1/users/${later.id}/deactivate`, { token: admin }, [['user.deactivated', 'success', null]]);
    expect(user.id).not.toBe(later.id);
  });

  it('own password and its reset', async () => {
    const { username, password, user } = await person();
    const token = keep(await app.signIn(username, password));
    const next = keep(`${password}-next`);
    await audited('POST', '/v1/me/password', { token, json: { current_password: keep('not-my-password'), new_password: next } }, [['auth.password_changed', 'failure', 'wrong_password']]);
    const changed = await audited('POST', '/v1/me/password', { token, json: { current_password: password, new_password: next } }, [['auth.password_changed', 'success', null]]);
    keep(changed.body.access_token ?? changed.body.accessToken ?? '');

    const before = mailer.sent.length;
    await audited('POST', '/v1/auth/password-reset', { json: { email: user.email } }, [['auth.password_reset_requested', 'success', null]]);
    await audited('POST', '/v1/auth/password-reset', { json: { email: `${unique('nobody')}@example.com` } }, [['auth.password_reset_requested', 'failure', 'unknown_address']]);
    const resetToken = keep(await mailer.tokenSentTo(user.email, before));
    await audited('POST', '/v1/auth/password-reset/confirm', { json: { token: resetToken, password: keep(`${next}-reset`) } }, [['auth.password_reset_confirmed', 'success', null]]);
    await audited('POST', '/v1/auth/password-reset/confirm', { json: { token: resetToken, password: keep(`${next}-again`) } }, [['auth.password_reset_confirmed', 'failure', 'PASSWORD_RESET_USED']]);
  });

  it('invitations: issue, resend, revoke, accept', async () => {
    const email = `${unique('invitee')}@example.com`;
    const { id, token } = await invite(email);
    await audited('POST', '/v1/users/invite', { token: admin, json: { email } }, [['invitation.issued', 'failure', 'EMAIL_TAKEN']]);
    await audited('POST', `/v1/users/${id}/invitation/resend`, { token: admin }, [['invitation.resent', 'success', null]]);
    const before = mailer.sent.length;
    const resent = keep(await mailer.tokenSentTo(email, before - 1).catch(() => token));
    const accepted = { token: resent, name: 'Joined Person', username: unique('joined'), password: keep('joined-long-password') };
    await audited('POST', '/v1/invitations/accept', { json: accepted }, [['invitation.accepted', 'success', null]]);
    await audited('POST', '/v1/invitations/accept', { json: { ...accepted, token: keep('no-such-invitation-token-at-all') } }, [['invitation.accepted', 'failure', 'INVITATION_NOT_FOUND']]);

    const other = await invite(`${unique('revoked')}@example.com`);
    await audited('DELETE', `/v1/users/${other.id}/invitation`, { token: admin }, [['invitation.revoked', 'success', null]]);
  });

  it('users: change, role, deactivate, reactivate, delete; a refusal', async () => {
    const { user, username, password } = await person();
    const member = keep(await app.signIn(username, password));
    const { user: target } = await person();
    await audited('PATCH', `/v1/users/${target.id}`, { token: admin, json: { name: 'New Name' } }, [['user.updated', 'success', null]]);
    await audited('PATCH', `/v1/users/${target.id}`, { token: admin, json: { role: 'admin' } }, [['user.role_changed', 'success', null]]);
    await audited('PATCH', `/v1/users/${target.id}`, { token: member, json: { role: 'member' } }, [['user.role_changed', 'failure', 'PERMISSION_DENIED']]);
    await audited('POST', `/v1/users/${target.id}/deactivate`, { token: admin }, [['user.deactivated', 'success', null]]);
    await audited('POST', `/v1/users/${target.id}/reactivate`, { token: admin }, [['user.reactivated', 'success', null]]);
    await audited('DELETE', `/v1/users/${target.id}`, { token: admin }, [['user.deleted', 'success', null]]);
    await audited('DELETE', `/v1/users/${user.id}`, { token: admin, headers: { 'if-match': '"999"' } }, [['user.deleted', 'failure', 'USER_CHANGED_CONCURRENTLY']]);
  });

  it('roles: create, update, delete; a refusal', async () => {
    const created = await audited('POST', '/v1/roles', { token: admin, json: { name: unique('auditrole'), permissions: ['users:read'] } }, [['role.created', 'success', null]]);
    const id = created.body._id as string;
    await audited('PATCH', `/v1/roles/${id}`, { token: admin, json: { permissions: ['users:read', 'roles:read'] } }, [['role.updated', 'success', null]]);
    await audited('POST', '/v1/roles', { token: admin, json: { name: 'admin', permissions: [] } }, [['role.created', 'failure', 'ROLE_NAME_TAKEN']]);
    await audited('DELETE', `/v1/roles/${id}`, { token: admin }, [['role.deleted', 'success', null]]);
  });

  it('service accounts: every change, and tokens granted and refused', async () => {
    const created = await audited('POST', '/v1/service-accounts', { token: admin, json: { name: unique('svc'), role: 'member' } }, [['service_account.created', 'success', null]]);
    const { _id: id, client_id: clientId } = created.body as { _id: string; client_id: string };
    const secret = keep(created.body.client_secret as string);
    await audited('PATCH', `/v1/service-accounts/${id}`, { token: admin, json: { description: 'Reads' } }, [['service_account.updated', 'success', null]]);
    const added = await audited('POST', `/v1/service-accounts/${id}/secrets`, { token: admin, json: {} }, [['service_account.secret_added', 'success', null]]);
    keep(added.body.client_secret as string);
    await audited('DELETE', `/v1/service-accounts/${id}/secrets/${added.body._id ?? added.body.secret?._id}`, { token: admin }, [['service_account.secret_deleted', 'success', null]]);
    const key = { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo', kid: 'audit' };
    await audited('PUT', `/v1/service-accounts/${id}/keys`, { token: admin, json: { keys: [key] } }, [['service_account.keys_replaced', 'success', null]]);

    const form = (fields: Record<string, string>) => ({ body: new URLSearchParams(fields).toString(), headers: { 'content-type': FORM } });
    const granted = await audited('POST', '/oauth/token', form({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret }), [['service_account.token_granted', 'success', 'client_secret']]);
    keep(granted.body.access_token as string);
    await audited('POST', '/oauth/token', form({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret, scope: 'users:delete' }), [['service_account.token_refused', 'failure', 'invalid_scope']]);
    // Refused client authentication, at the token endpoint and at introspection: a wrong secret, an unknown client, a bad assertion.
    const refused = (code: string): Expected => [['service_account.authentication_failed', 'failure', code]];
    await audited('POST', '/oauth/token', form({ grant_type: 'client_credentials', client_id: clientId, client_secret: keep('not-the-secret-at-all') }), refused('client_secret_post'));
    await audited('POST', '/oauth/token', { ...form({ grant_type: 'client_credentials' }), headers: { 'content-type': FORM, authorization: `Basic ${Buffer.from(`nobody:${keep('whatever-secret')}`).toString('base64')}` } }, refused('client_secret_basic'));
    const assertion = keep('eyJhbGciOiJFZERTQSIsImtpZCI6ImF1ZGl0In0.eyJpc3MiOiJub2JvZHkifQ.c2lnbmF0dXJl');
    await audited('POST', '/oauth/introspect', form({ token: 'x', client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', client_assertion: assertion }), refused('private_key_jwt'));
    await audited('DELETE', `/v1/service-accounts/${id}`, { token: admin }, [['service_account.deleted', 'success', null]]);
  });

  it('holds none of the secrets the suite handled in any entry', async () => {
    const dump = (await app.request('GET', '/v1/audit-events/export?from=2000-01-01T00:00:00Z', { token: admin })).text;
    const rows: string[] = await app.api.container.cradle.dataSource.query('SELECT * FROM audit_events').then((r: object[]) => r.map((row) => JSON.stringify(row)));
    expect(dump.split('\n').length).toBeGreaterThan(45);
    const found = [...secrets].filter((secret) => secret.length >= 8 && (dump.includes(secret) || rows.some((row) => row.includes(secret))));
    expect(found).toEqual([]);
  });
});
