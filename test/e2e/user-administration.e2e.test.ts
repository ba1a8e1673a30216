import type { Role } from '../../src/domain/roles/role';
import { SEEDED_ROLES } from '../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { ADMIN, startTestApp, type TestApp } from '../support/test-app';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const member: Role = { id: SEEDED_ROLES.member, name: 'member', permissions: [] };
const adminRole: Role = { id: SEEDED_ROLES.admin, name: 'admin', permissions: [] };
/** A custom role holding every permission without being the admin role: it may act on admins, and is not one. */
const SUPERVISOR = { id: '01a1fc99-0000-7000-8000-0000000000b1', name: 'supervisor' };
/** A role that may read and change users, and hand out nothing beyond that. */
const EDITOR = { id: '01a1fc99-0000-7000-8000-0000000000b2', name: 'editor', permissions: ['users:read', 'users:update'] };
const NO_SUCH_USER = '01a1fc99-dead-7000-8000-000000000001';

describe('administering one user (#11)', () => {
  let app: TestApp;
  let admin: string;
  let adminId: string;
  let counter = 0;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.signIn();
    adminId = (await app.request('GET', '/v1/users', { token: admin })).body.users[0]._id;
    await app.addRole({ ...SUPERVISOR, permissions: 'all' });
    await app.addRole(EDITOR);
  });
  afterAll(async () => app.close());

  /** A joined user with its own password, and a token of it. */
  const joined = async (role: Role = member) => {
    counter += 1;
    const username = `person-${counter}`;
    const password = `${username}-long-password`;
    const user = await app.addJoinedUser({ username, password, email: `${username}@example.com`, role });
    return { id: user.id, username, password, email: `${username}@example.com`, token: await app.signIn(username, password) };
  };
  const get = (id: string, token = admin) => app.request('GET', `/v1/users/${id}`, { token });
  const patch = (id: string, json: unknown, headers: Record<string, string> = {}, token = admin) =>
    app.request('PATCH', `/v1/users/${id}`, { token, json, headers });
  const action = (id: string, what: 'deactivate' | 'reactivate', token = admin, headers: Record<string, string> = {}) =>
    app.request('POST', `/v1/users/${id}/${what}`, { token, headers });
  const remove = (id: string, token = admin) => app.request('DELETE', `/v1/users/${id}`, { token });
  const signIn = (username: string, password: string) => app.request('POST', '/v1/auth/signin', { json: { username, password } });

  describe('GET /v1/users/{id}', () => {
    it('shows the list’s shape plus status, with the version as a strong ETag, and never a secret', async () => {
      const person = await joined();
      const response = await get(person.id);
      expect(response.status).toBe(200);
      expect(response.headers.get('etag')).toBe('"1"');
      expect(response.body).toEqual({
        _id: person.id,
        name: person.username,
        email: person.email,
        username: person.username,
        role: { _id: SEEDED_ROLES.member, name: 'member', permissions: [] },
        invited_date: expect.stringMatching(ISO_MS),
        joined_date: expect.stringMatching(ISO_MS),
        status: 'active',
      });
      const list = await app.request('GET', '/v1/users?page_size=100', { token: admin });
      const { status, ...listed } = response.body;
      expect(status).toBe('active');
      expect(list.body.users.find((u: { _id: string }) => u._id === person.id)).toEqual(listed);
    });

    it('shows a pending invitee as pending, without the fields it has not chosen yet', async () => {
      const invited = await app.request('POST', '/v1/users/invite', { token: admin, json: { email: 'pending-one@example.com' } });
      const response = await app.request('GET', invited.headers.get('location')!, { token: admin });
      expect(response.status).toBe(200);
      // The link's expiry (#25) is there once the mailer has issued the link, which races this read.
      const { invitation_expires_date: expires, ...chosen } = response.body;
      expect(chosen).toEqual({
        _id: expect.any(String),
        email: 'pending-one@example.com',
        role: { _id: SEEDED_ROLES.member, name: 'member', permissions: [] },
        invited_date: expect.stringMatching(ISO_MS),
        invited_by: adminId,
        status: 'pending',
      });
      if (expires !== undefined) expect(expires).toMatch(ISO_MS);
    });

    it('answers an unknown id 404 USER_NOT_FOUND, and a malformed one 400 naming the id (never a 500)', async () => {
      const unknown = await get(NO_SUCH_USER);
      expect({ status: unknown.status, code: unknown.body.code }).toEqual({ status: 404, code: 'USER_NOT_FOUND' });
      for (const bad of ['x'.repeat(37), encodeURIComponent('é'), '%00']) {
        const response = await get(bad);
        expect({ bad, status: response.status, code: response.body.code }).toEqual({ bad, status: 400, code: 'VALIDATION_FAILED' });
        expect(response.body.errors[0].field).toBe('id');
      }
      // Past the router's bound, or not a URL the router can decode: still errors[], naming the path.
      for (const bad of ['x'.repeat(250), '%zz']) {
        const response = await get(bad);
        expect({ bad, status: response.status, code: response.body.code, field: response.body.errors?.[0]?.field }).toEqual({ bad, status: 400, code: 'VALIDATION_FAILED', field: 'path' });
      }
    });
  });

  describe('PATCH /v1/users/{id}', () => {
    it('changes the name and the role: updated_date and updated_by then show in GET and in the list, and the ETag moves on', async () => {
      const person = await joined();
      const changed = await patch(person.id, { name: 'Renamed Person', role: 'admin' }, { 'if-match': '"1"' });
      expect(changed.status).toBe(200);
      expect(changed.headers.get('etag')).toBe('"2"');
      expect(changed.body).toMatchObject({ name: 'Renamed Person', role: { _id: SEEDED_ROLES.admin, name: 'admin' }, updated_by: adminId, updated_date: expect.stringMatching(ISO_MS) });

      const read = await get(person.id);
      expect(read.body).toEqual(changed.body);
      expect(read.headers.get('etag')).toBe('"2"');
      const list = await app.request('GET', '/v1/users?page_size=100', { token: admin });
      expect(list.body.users.find((u: { _id: string }) => u._id === person.id)).toMatchObject({ name: 'Renamed Person', updated_by: adminId, updated_date: read.body.updated_date });
      // Back to member, by the role's _id, so it does not count as another admin below.
      expect((await patch(person.id, { role: SEEDED_ROLES.member })).body.role.name).toBe('member');
    });

    it('a role change takes effect on the user’s next request, with the token it already holds', async () => {
      const person = await joined();
      expect((await app.request('GET', '/v1/users', { token: person.token })).status).toBe(403);
      expect((await patch(person.id, { role: 'admin' })).status).toBe(200);
      expect((await app.request('GET', '/v1/users', { token: person.token })).status).toBe(200);
      expect((await patch(person.id, { role: 'member' })).status).toBe(200);
      expect((await app.request('GET', '/v1/users', { token: person.token })).status).toBe(403);
    });

    it('of two concurrent changes with the same If-Match one wins (200) and the other is told (409): no lost write', async () => {
      const person = await joined();
      const [a, b] = await Promise.all([
        patch(person.id, { name: 'Writer A' }, { 'if-match': '"1"' }),
        patch(person.id, { name: 'Writer B' }, { 'if-match': '"1"' }),
      ]);
      expect([a.status, b.status].sort()).toEqual([200, 409]);
      const [winner, loser] = a.status === 200 ? [a, b] : [b, a];
      expect(loser.body.code).toBe('USER_CHANGED_CONCURRENTLY');
      const read = await get(person.id);
      expect({ name: read.body.name, etag: read.headers.get('etag') }).toEqual({ name: winner.body.name, etag: '"2"' });
      // The loser reads again and retries with the version it now knows.
      expect((await patch(person.id, { name: 'Writer again' }, { 'if-match': '"2"' })).status).toBe(200);
      expect((await patch(person.id, { name: 'Anyone' }, { 'if-match': '*' })).status).toBe(200);
    });

    it('takes changes made at once without If-Match in turn: each is applied (200), none told of a conflict it did not ask about', async () => {
      const person = await joined();
      const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => patch(person.id, { name: `Writer ${i}` })));
      expect(answers.map((a) => a.status)).toEqual(Array(6).fill(200));
      expect((await get(person.id)).headers.get('etag')).toBe('"7"');
    });

    it('refuses a malformed If-Match, an unknown field, an unknown role and an over-long name with 400, changing nothing', async () => {
      const person = await joined();
      for (const [json, headers, field] of [
        [{ name: 'X' }, { 'if-match': 'W/"1"' }, 'if-match'],
        [{ name: 'X' }, { 'if-match': '"1", "2"' }, 'if-match'],
        [{ name: 'X', status: 'active' }, {}, 'status'],
        [{ name: 'X', email: 'taken@example.com' }, {}, 'email'],
        [{ name: 'x'.repeat(201) }, {}, 'name'],
      ] as const) {
        const response = await patch(person.id, json, headers);
        expect({ field, status: response.status, code: response.body.code, errors: response.body.errors.map((e: { field: string }) => e.field) }).toEqual({
          field,
          status: 400,
          code: 'VALIDATION_FAILED',
          errors: [field],
        });
        // Told in words, never the schema's regular expression.
        if (field === 'if-match') expect(response.body.errors[0].message).toMatch(/^must be one strong entity tag as `ETag` gives it/);
        expect(response.text).not.toMatch(/must match pattern/);
      }
      const unknownRole = await patch(person.id, { role: 'no-such-role' });
      expect({ status: unknownRole.status, code: unknownRole.body.code }).toEqual({ status: 400, code: 'ROLE_NOT_FOUND' });
      // An empty body is no change: 200, and the version stays.
      expect((await patch(person.id, {})).headers.get('etag')).toBe('"1"');
      const read = await get(person.id);
      expect({ name: read.body.name, etag: read.headers.get('etag') }).toEqual({ name: person.username, etag: '"1"' });
      expect((await patch(NO_SUCH_USER, { name: 'Nobody' })).body.code).toBe('USER_NOT_FOUND');
    });
  });

  describe('deactivate and reactivate', () => {
    it('deactivating refuses the user’s token at once (401) and its sign-in fails exactly like a wrong password; reactivating restores the same password', async () => {
      const person = await joined();
      const other = await joined();
      expect((await app.request('GET', '/v1/permissions', { token: person.token })).status).toBe(403);

      const deactivated = await action(person.id, 'deactivate');
      expect(deactivated.status).toBe(200);
      expect(deactivated.body.status).toBe('deactivated');
      const refused = await app.request('GET', '/v1/permissions', { token: person.token });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer /);

      const deactivatedSignIn = await signIn(person.username, person.password);
      const wrongPassword = await signIn(other.username, 'not-the-right-password');
      expect(deactivatedSignIn.status).toBe(401);
      expect(deactivatedSignIn.text).toBe(wrongPassword.text);
      expect(deactivatedSignIn.headers.get('content-type')).toBe(wrongPassword.headers.get('content-type'));

      // A second deactivation changes nothing (the version stays).
      const again = await action(person.id, 'deactivate');
      expect({ status: again.status, etag: again.headers.get('etag') }).toEqual({ status: 200, etag: deactivated.headers.get('etag') });

      const reactivated = await action(person.id, 'reactivate');
      expect(reactivated.status).toBe(200);
      expect(reactivated.body.status).toBe('active');
      expect((await get(person.id)).body.status).toBe('active');
      const signedIn = await signIn(person.username, person.password);
      expect(signedIn.status).toBe(200);
      expect((await app.request('GET', '/v1/permissions', { token: signedIn.body.accessToken })).status).toBe(403);
      // The token the deactivation ended stays ended.
      expect((await app.request('GET', '/v1/permissions', { token: person.token })).status).toBe(401);
    });

    it('answers an unknown id 404 and a stale If-Match 409, changing nothing', async () => {
      const person = await joined();
      expect((await action(NO_SUCH_USER, 'deactivate')).body.code).toBe('USER_NOT_FOUND');
      expect((await action(NO_SUCH_USER, 'reactivate')).body.code).toBe('USER_NOT_FOUND');
      const stale = await action(person.id, 'deactivate', admin, { 'if-match': '"7"' });
      expect({ status: stale.status, code: stale.body.code }).toEqual({ status: 409, code: 'USER_CHANGED_CONCURRENTLY' });
      expect((await get(person.id)).body.status).toBe('active');
      expect((await signIn(person.username, person.password)).status).toBe(200);
    });
  });

  describe('DELETE /v1/users/{id}', () => {
    it('answers 204; the user is gone (404, not listed), its token refused, and its e-mail can be invited again', async () => {
      const person = await joined();
      const deleted = await remove(person.id);
      expect(deleted.status).toBe(204);
      expect(deleted.text).toBe('');
      expect((await get(person.id)).body.code).toBe('USER_NOT_FOUND');
      const list = await app.request('GET', '/v1/users?page_size=100', { token: admin });
      expect(list.body.users.map((u: { _id: string }) => u._id)).not.toContain(person.id);
      expect((await app.request('GET', '/v1/permissions', { token: person.token })).status).toBe(401);
      expect((await signIn(person.username, person.password)).status).toBe(401);
      expect((await remove(person.id)).status).toBe(404);

      const invitedAgain = await app.request('POST', '/v1/users/invite', { token: admin, json: { email: person.email } });
      expect(invitedAgain.status).toBe(201);
      expect(invitedAgain.headers.get('location')).not.toBe(`/v1/users/${person.id}`);
    });
  });

  describe('guard rails', () => {
    it('nobody deactivates or deletes their own account (409 OWN_ACCOUNT); renaming oneself is allowed', async () => {
      for (const response of [await action(adminId, 'deactivate'), await remove(adminId)]) {
        expect({ status: response.status, code: response.body.code }).toEqual({ status: 409, code: 'OWN_ACCOUNT' });
      }
      expect((await get(adminId)).body.status).toBe('active');
      expect((await patch(adminId, { name: ADMIN.name })).status).toBe(200);
    });

    it('the last active admin cannot be deactivated, deleted or demoted (409 LAST_ACTIVE_ADMIN); with another admin it can', async () => {
      const supervisor = await joined({ id: SUPERVISOR.id, name: SUPERVISOR.name, permissions: [] });
      const refusals = [
        await action(adminId, 'deactivate', supervisor.token),
        await remove(adminId, supervisor.token),
        await patch(adminId, { role: 'member' }, {}, supervisor.token),
        await patch(adminId, { role: 'member' }),
      ];
      expect(refusals.map((r) => [r.status, r.body.code])).toEqual(Array(4).fill([409, 'LAST_ACTIVE_ADMIN']));
      expect((await get(adminId)).body).toMatchObject({ status: 'active', role: { name: 'admin' } });
      expect(await app.signIn()).toEqual(expect.any(String));

      // With a second active admin the first may go; then the second is the last one.
      const second = await joined(adminRole);
      expect((await action(adminId, 'deactivate', supervisor.token)).status).toBe(200);
      const lastOne = await action(second.id, 'deactivate', supervisor.token);
      expect(lastOne.body.code).toBe('LAST_ACTIVE_ADMIN');
      expect((await action(adminId, 'reactivate', supervisor.token)).status).toBe(200);
      expect((await remove(second.id, supervisor.token)).status).toBe(204);
      // The deactivation ended the admin's tokens; reactivated, it signs in again.
      expect((await app.request('GET', '/v1/users', { token: admin })).status).toBe(401);
      admin = await app.signIn();
    });

    it('a caller lacking a permission of the user’s role cannot act on its holders (403), and a member cannot act at all', async () => {
      const someone = await joined();
      const plain = await joined();
      const editor = await joined({ ...EDITOR, permissions: [...EDITOR.permissions] });
      expect((await patch(someone.id, { name: 'Edited Member' }, {}, editor.token)).status).toBe(200);
      const onAdmin = await patch(adminId, { name: 'Edited Admin' }, {}, editor.token);
      expect({ status: onAdmin.status, code: onAdmin.body.code }).toEqual({ status: 403, code: 'PERMISSION_DENIED' });
      expect((await patch(someone.id, { role: 'admin' }, {}, editor.token)).status).toBe(403);
      expect((await get(adminId)).body.name).toBe(ADMIN.name);
      expect((await get(someone.id, plain.token)).body.code).toBe('PERMISSION_DENIED');
      expect((await patch(someone.id, { name: 'Hijacked' }, {}, plain.token)).status).toBe(403);
      expect((await action(someone.id, 'deactivate', plain.token)).status).toBe(403);
      expect((await remove(someone.id, plain.token)).status).toBe(403);
      expect((await get(someone.id)).body).toMatchObject({ name: 'Edited Member', role: { name: 'member' }, status: 'active' });
    });
  });
});
