import { asValue } from 'awilix';
import { SEEDED_ROLES } from '../../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { CapturingMailer } from '../../support/capturing-mailer';
import { ADMIN, startTestApp, type TestApp } from '../../support/test-app';
import { decodeJwt } from '../../support/tokens';

/**
 * Mass assignment (API3) on every body that creates or changes a user: a field the body may not hold, a
 * `__proto__` key, a role given as an object. (The authorization matrix beside it: every route × every caller.)
 */
describe('mass assignment', () => {
  const mailer = new CapturingMailer();
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ LOG_LEVEL: process.env.MATRIX_LOG ?? 'silent' }, { mailer: asValue(mailer) });
    // An inviter (users:invite alone) and a member, as the matrix has them.
    const inviterRole = { id: '01a1fc99-0000-7000-8000-0000000000a1', name: 'only-invite', permissions: ['users:invite'] };
    await app.addRole(inviterRole);
    await app.addJoinedUser({ username: 'matrix-inviter', password: 'inviter-password-long', email: 'inviter@example.com', role: inviterRole });
    const member = { id: SEEDED_ROLES.member, name: 'member', permissions: [] };
    await app.addJoinedUser({ username: 'matrix-member', password: 'member-password-long', email: 'member@example.com', role: member });
  });
  afterAll(async () => app.close());

  const dataSource = () => app.api.container.cradle.dataSource;
  /** A raw body with a "__proto__" key (JSON.stringify of an object literal would not write one). */
  const withProto = (body: Record<string, unknown>) =>
    `{"__proto__":{"role":"admin","permissions":["users:read"],"isAdmin":true},${JSON.stringify(body).slice(1)}`;
  /** A body with a __proto__ key is refused outright (fastify's onProtoPoisoning: 'error'): 400 VALIDATION_FAILED naming the key. */
  const expectProtoRefused = async (path: string, body: Record<string, unknown>, token?: string) => {
    const response = await app.request('POST', path, { token, body: withProto(body), headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(400);
    expect({ code: response.body.code, field: response.body.errors?.[0]?.field }).toEqual({ code: 'VALIDATION_FAILED', field: '__proto__' });
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('role');
  };
  const FORGED = {
    role: { _id: SEEDED_ROLES.admin, name: 'admin', permissions: ['users:read', 'users:invite', 'permissions:read'] },
    permissions: ['users:read', 'users:invite', 'permissions:read'],
    _id: '01a1fc99-dead-7000-8000-000000000bad',
    joined_date: '2000-01-01T00:00:00.000Z',
    invited_by: '01a1fc99-dead-7000-8000-00000000b0b0',
    token_version: 99,
  };
  const { role: forgedRole, ...FORGED_NO_ROLE } = FORGED;
  /** Each field a body may not hold, sent alone beside a valid body: a 400 naming it (the OpenAPI document says `additionalProperties: false`). */
  const expectEachRefused = async (path: string, body: Record<string, unknown>, forged: Record<string, unknown>, token?: string) => {
    for (const [field, value] of Object.entries(forged)) {
      const response = await app.request('POST', path, { token, json: { ...body, [field]: value } });
      expect({ field, status: response.status, code: response.body.code, errors: response.body.errors }).toEqual({
        field,
        status: 400,
        code: 'VALIDATION_FAILED',
        errors: [{ field, message: 'is not a field of this request' }],
      });
    }
  };

  interface UserRow {
    id: string;
    role_id: string;
    invited_by: string | null;
    joined_at: Date | null;
    token_version: number;
    password_hash: string | null;
    username: string | null;
  }
  const row = async (emailKey: string): Promise<UserRow> =>
    (await dataSource().query('SELECT id, role_id, invited_by, joined_at, token_version, password_hash, username FROM users WHERE email_key = ?', [emailKey]))[0];

  it('invite: a __proto__ key or a forged field is a 400 creating nothing; a role given as an object is a 400', async () => {
    const admin = await app.signIn();
    const adminId: string = (await row(ADMIN.email)).id;

    const asObject = await app.request('POST', '/v1/users/invite', { token: admin, json: { email: 'object-role@example.com', role: forgedRole } });
    expect(asObject.status).toBe(400);
    expect(asObject.body.errors.map((e: { field: string }) => e.field)).toContain('role');
    expect(await dataSource().query("SELECT id FROM users WHERE email_key = 'object-role@example.com'")).toHaveLength(0);

    const inviter = await app.signIn('matrix-inviter', 'inviter-password-long');
    await expectProtoRefused('/v1/users/invite', { email: 'mass-invite@example.com' }, inviter);
    expect(await dataSource().query("SELECT id FROM users WHERE email_key = 'mass-invite@example.com'")).toHaveLength(0);
    await expectEachRefused('/v1/users/invite', { email: 'mass-invite@example.com' }, { ...FORGED_NO_ROLE, username: 'chosen', password: 'chosen-password-1' }, inviter);
    expect(await dataSource().query("SELECT id FROM users WHERE email_key = 'mass-invite@example.com'")).toHaveLength(0);
    // The same invitation without them: a pending member, invited by this inviter, nothing else set.
    const response = await app.request('POST', '/v1/users/invite', { token: inviter, json: { email: 'mass-invite@example.com' } });
    expect(response.status).toBe(201);
    const user = await row('mass-invite@example.com');
    const inviterId = (await row('inviter@example.com')).id;
    expect(user.id).not.toBe(FORGED._id);
    expect(user.role_id).toBe(SEEDED_ROLES.member);
    expect(user.invited_by).toBe(inviterId);
    expect(user.invited_by).not.toBe(adminId);
    expect(user.joined_at).toBeNull();
    expect(Number(user.token_version)).toBe(0);
    expect(user.password_hash).toBeNull();
    expect(user.username).toBeNull();
  });

  it('accept: a __proto__ key or a forged field is a 400 joining nobody; then the link joins a member with its own id, date and inviter', async () => {
    const admin = await app.signIn();
    expect((await app.request('POST', '/v1/users/invite', { token: admin, json: { email: 'mass-accept@example.com' } })).status).toBe(201);
    const before = await row('mass-accept@example.com');
    const deadline = Date.now() + 10_000;
    while (!mailer.sent.some((m) => m.to === 'mass-accept@example.com') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const secret = CapturingMailer.tokenOf(mailer.lastTo('mass-accept@example.com'));
    const startedAt = Date.now();

    const legit = { token: secret, name: 'Mass Accept', username: 'massaccept', password: 'a long passphrase here' };
    await expectProtoRefused('/v1/invitations/accept', legit);
    expect((await row('mass-accept@example.com')).joined_at).toBeNull();
    await expectEachRefused('/v1/invitations/accept', legit, { ...FORGED, role: 'admin' });
    expect((await row('mass-accept@example.com')).joined_at).toBeNull();
    const accepted = await app.request('POST', '/v1/invitations/accept', { json: legit });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toEqual({ _id: before.id, username: 'massaccept' });

    const after = await row('mass-accept@example.com');
    expect(after.id).toBe(before.id);
    expect(after.role_id).toBe(SEEDED_ROLES.member);
    expect(after.invited_by).toBe(before.invited_by);
    expect(Number(after.token_version)).toBe(0);
    expect(new Date(after.joined_at!).getTime()).toBeGreaterThanOrEqual(startedAt - 2_000);

    const signedIn = await app.request('POST', '/v1/auth/signin', { json: { username: 'massaccept', password: 'a long passphrase here' } });
    expect(signedIn.body.role).toEqual({ name: 'member', permissions: [] });
    expect((await app.request('GET', '/v1/users', { token: signedIn.body.accessToken })).status).toBe(403);
  });

  it('sign-in: a __proto__ key or a forged field is a 400; the token of a plain sign-in is the row’s own', async () => {
    const credentials = { username: 'matrix-member', password: 'member-password-long' };
    await expectProtoRefused('/v1/auth/signin', credentials);
    await expectEachRefused('/v1/auth/signin', credentials, { ...FORGED, sub: FORGED._id, ver: 99 });
    const response = await app.request('POST', '/v1/auth/signin', { json: credentials });
    expect(response.status).toBe(200);
    expect(response.body.role).toEqual({ name: 'member', permissions: [] });
    expect(Object.keys(response.body).sort()).toEqual(['accessToken', 'email', 'name', 'refreshToken', 'role', 'username']);
    const { payload } = decodeJwt(response.body.accessToken);
    const memberRow = await row('member@example.com');
    expect(payload.sub).toBe(memberRow.id);
    expect(payload.ver).toBe(Number(memberRow.token_version));
    expect(Number(memberRow.token_version)).not.toBe(99);
    expect(memberRow.role_id).toBe(SEEDED_ROLES.member);
    expect((await app.request('GET', '/v1/users', { token: response.body.accessToken })).status).toBe(403);
  });
});
