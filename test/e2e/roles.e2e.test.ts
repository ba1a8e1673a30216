import { SEEDED_ROLES } from '../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { startTestApp, type TestApp, type TestResponse } from '../support/test-app';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const NO_SUCH_ROLE = '01a1fc99-dead-7000-8000-0000000000f1';

describe('role administration (#11)', () => {
  let app: TestApp;
  let admin: string;
  let counter = 0;

  beforeAll(async () => {
    // The actor cache on: a role change must still apply on the holder's next request.
    app = await startTestApp({ ACTOR_CACHE_TTL: '60s' });
    admin = await app.signIn();
  });
  afterAll(async () => app.close());

  const create = (json: unknown, token = admin) => app.request('POST', '/v1/roles', { token, json });
  const get = (id: string, token = admin) => app.request('GET', `/v1/roles/${id}`, { token });
  const patch = (id: string, json: unknown, headers: Record<string, string> = {}, token = admin) =>
    app.request('PATCH', `/v1/roles/${id}`, { token, json, headers });
  const remove = (id: string, headers: Record<string, string> = {}, token = admin) => app.request('DELETE', `/v1/roles/${id}`, { token, headers });
  const unique = (prefix: string) => `${prefix}-${++counter}`;

  /** A joined user holding `roleId`, and a token of it. */
  const holder = async (roleId: string, roleName: string) => {
    const username = unique('holder');
    const password = `${username}-long-password`;
    const user = await app.addJoinedUser({ username, password, email: `${username}@example.com`, role: { id: roleId, name: roleName, permissions: [] } });
    return { id: user.id, username, password, token: await app.signIn(username, password) };
  };

  it('creates a role (201, Location, ETag) from permission names and ids, and shows it by id and in the list', async () => {
    const permissions = (await app.request('GET', '/v1/permissions?name=users:read', { token: admin })).body.permissions;
    const name = unique('Auditor');
    const created = await create({ name, permissions: [permissions[0]._id, 'roles:read'] });
    expect(created.status).toBe(201);
    expect(created.headers.get('etag')).toBe('"1"');
    expect(created.headers.get('location')).toBe(`/v1/roles/${created.body._id}`);
    expect(created.body).toEqual({ _id: expect.any(String), name, permissions: ['roles:read', 'users:read'], built_in: false, created_date: expect.stringMatching(ISO_MS) });

    const read = await get(created.body._id);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
    const list = await app.request('GET', '/v1/roles?page_size=100', { token: admin });
    expect(list.status).toBe(200);
    expect(list.body.roles).toContainEqual(created.body);
    expect(list.body.roles.find((r: { name: string }) => r.name === 'admin')).toMatchObject({ _id: SEEDED_ROLES.admin, built_in: true });
    expect(list.body.pagination).toEqual({ page: 1, page_size: 100, page_count: 1, total_document: list.body.roles.length });
  });

  it('pages like the other lists: defaults, bounds, a page past the end', async () => {
    const first = await app.request('GET', '/v1/roles?page_size=1', { token: admin });
    expect(first.body.roles).toHaveLength(1);
    expect(first.body.pagination.page_count).toBe(first.body.pagination.total_document);
    const past = await app.request('GET', '/v1/roles?page=999', { token: admin });
    expect(past.status).toBe(200);
    expect(past.body.roles).toEqual([]);
    expect(past.body.pagination.page_size).toBe(10);
    const furthest = await app.request('GET', `/v1/roles?page=${Number.MAX_SAFE_INTEGER}&page_size=100`, { token: admin });
    expect(furthest.status).toBe(200);
    expect(furthest.body).toEqual({ roles: [], pagination: { ...first.body.pagination, page: Number.MAX_SAFE_INTEGER, page_size: 100, page_count: 1 } });
    expect((await app.request('GET', '/v1/roles?page_size=101', { token: admin })).status).toBe(400);
    expect((await app.request('GET', '/v1/roles?page=0', { token: admin })).status).toBe(400);
  });

  it('refuses an unknown permission naming it, a duplicate name case-insensitively, an invalid name, an unknown field', async () => {
    const unknown = await create({ name: unique('x'), permissions: ['users:read', 'users:fly'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ code: 'PERMISSION_NOT_FOUND', detail: expect.stringContaining('"users:fly"') });
    expect((await create({ name: 'ADMIN', permissions: [] })).body).toMatchObject({ status: 409, code: 'ROLE_NAME_TAKEN' });
    expect((await create({ name: '9lives', permissions: [] })).body).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    expect((await create({ name: unique('x'), permissions: [], admin: true })).status).toBe(400);
    expect((await create({ name: unique('x') })).status).toBe(400);
  });

  it('answers 404 NO_SUCH_ROLE for an unknown id and 400 for a malformed one', async () => {
    expect((await get(NO_SUCH_ROLE)).body).toMatchObject({ status: 404, code: 'NO_SUCH_ROLE' });
    expect((await patch(NO_SUCH_ROLE, { name: 'x' })).status).toBe(404);
    expect((await remove(NO_SUCH_ROLE)).status).toBe(404);
    expect((await get('é'.repeat(3))).status).toBe(400);
    expect((await get('x'.repeat(37))).status).toBe(400);
  });

  it('keeps the built-in roles: 409 BUILT_IN_ROLE on deleting or renaming them, or stripping admin', async () => {
    expect((await remove(SEEDED_ROLES.member)).body).toMatchObject({ status: 409, code: 'BUILT_IN_ROLE' });
    expect((await remove(SEEDED_ROLES.admin)).body).toMatchObject({ status: 409, code: 'BUILT_IN_ROLE' });
    expect((await patch(SEEDED_ROLES.member, { name: 'members' })).body).toMatchObject({ status: 409, code: 'BUILT_IN_ROLE' });
    expect((await patch(SEEDED_ROLES.admin, { permissions: ['users:read'] })).body).toMatchObject({ status: 409, code: 'BUILT_IN_ROLE' });
  });

  it('applies a permission change to the holders on their very next request (with the actor cache on)', async () => {
    const role = (await create({ name: unique('reader'), permissions: ['users:read'] })).body;
    const person = await holder(role._id, role.name);
    expect((await app.request('GET', '/v1/users', { token: person.token })).status).toBe(200);

    const changed = await patch(role._id, { permissions: ['permissions:read'] }, { 'if-match': '"1"' });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).toBe('"2"');
    expect((await app.request('GET', '/v1/users', { token: person.token })).status).toBe(403);
    expect((await app.request('GET', '/v1/permissions', { token: person.token })).status).toBe(200);
    // A stale If-Match loses.
    expect((await patch(role._id, { name: unique('late') }, { 'if-match': '"1"' })).body).toMatchObject({ status: 409, code: 'ROLE_CHANGED_CONCURRENTLY' });
  });

  it('lets nobody create or edit a role granting what they lack', async () => {
    const writer = (await create({ name: unique('role-writer'), permissions: ['roles:write', 'roles:read'] })).body;
    const person = await holder(writer._id, writer.name);
    expect((await create({ name: unique('x'), permissions: ['users:delete'] }, person.token)).body).toMatchObject({ status: 403, code: 'PERMISSION_DENIED' });
    const own = await create({ name: unique('reader'), permissions: ['roles:read'] }, person.token);
    expect(own.status).toBe(201);
    expect((await patch(own.body._id, { permissions: ['roles:read', 'users:invite'] }, {}, person.token)).status).toBe(403);
    expect((await remove(SEEDED_ROLES.admin, {}, person.token)).status).toBe(403);
  });

  it('refuses to delete a role while a user holds it (ROLE_IN_USE), deletes it once nobody does', async () => {
    const role = (await create({ name: unique('temp'), permissions: [] })).body;
    const person = await holder(role._id, role.name);
    expect((await remove(role._id)).body).toMatchObject({ status: 409, code: 'ROLE_IN_USE' });
    // An erased user does not hold it (its remaining row moves to member).
    expect((await app.request('DELETE', `/v1/users/${person.id}`, { token: admin })).status).toBe(204);
    expect((await remove(role._id, { 'if-match': '"1"' })).status).toBe(204);
    expect((await get(role._id)).status).toBe(404);
  });

  describe('a role deleted while a write gives it to a user (#22): never a 500, always one consistent winner', () => {
    const ROUNDS = 15;
    /** Each round starts one of the two a little later than the other, in turn, so the rounds meet at different points. */
    const staggered = <A, B>(round: number, first: () => Promise<A>, second: () => Promise<B>): Promise<[A, B]> => {
      const lag = [0, 1, 3, 6, 10][round % 5]!;
      const later = <T>(start: () => Promise<T>) => new Promise<void>((resolve) => setTimeout(resolve, lag)).then(start);
      return round % 2 === 0 ? Promise.all([first(), later(second)]) : Promise.all([later(first), second()]);
    };

    /**
     * Both answers of a round and what the service holds after it, as one line, or null when they agree: the delete
     * won (the write finds no such role: 400 ROLE_NOT_FOUND, the role gone, nobody holds it) or the write did (it
     * succeeded, the delete is refused with 409 ROLE_IN_USE, the role stays and the user holds it).
     */
    const disagreement = (write: TestResponse, deleted: TestResponse, written: number, after: { roleStatus: number; held: boolean }): string | null => {
      const answers = `write ${write.status} ${write.body?.code ?? ''}, delete ${deleted.status} ${deleted.body?.code ?? ''}`;
      const deleteWon = deleted.status === 204 && write.status === 400 && write.body?.code === 'ROLE_NOT_FOUND';
      const writeWon = write.status === written && deleted.status === 409 && deleted.body?.code === 'ROLE_IN_USE';
      if (!deleteWon && !writeWon) return answers;
      if (deleteWon && (after.roleStatus !== 404 || after.held)) return `${answers}, yet the role answers ${after.roleStatus}, held: ${after.held}`;
      if (writeWon && (after.roleStatus !== 200 || !after.held)) return `${answers}, yet the role answers ${after.roleStatus}, held: ${after.held}`;
      return null;
    };

    it('PATCH /v1/users/{id} {role} racing DELETE /v1/roles/{role}', async () => {
      const person = await holder(SEEDED_ROLES.member, 'member');
      const disagreements: string[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const role = (await create({ name: unique('raced'), permissions: [] })).body;
        const [write, deleted] = await staggered(
          round,
          () => app.request('PATCH', `/v1/users/${person.id}`, { token: admin, json: { role: role.name } }),
          () => remove(role._id),
        );
        const user = (await app.request('GET', `/v1/users/${person.id}`, { token: admin })).body;
        const after = { roleStatus: (await get(role._id)).status, held: user.role._id === role._id };
        const wrong = disagreement(write, deleted, 200, after);
        if (wrong) disagreements.push(`round ${round}: ${wrong}`);
      }
      expect(disagreements).toEqual([]);
    });

    it('POST /v1/users/invite naming the role racing DELETE /v1/roles/{role}', async () => {
      const disagreements: string[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const role = (await create({ name: unique('raced'), permissions: [] })).body;
        const email = `${unique('raced-invitee')}@example.com`;
        const [write, deleted] = await staggered(
          round,
          () => app.request('POST', '/v1/users/invite', { token: admin, json: { email, role: role.name } }),
          () => remove(role._id),
        );
        const invited: { role: { _id: string } }[] = (await app.request('GET', `/v1/users?email=${encodeURIComponent(email)}`, { token: admin })).body.users;
        const after = { roleStatus: (await get(role._id)).status, held: invited.some((user) => user.role._id === role._id) };
        if (invited.length > 0 && !after.held) disagreements.push(`round ${round}: the invitee holds ${invited[0]!.role._id}`);
        const wrong = disagreement(write, deleted, 201, after);
        if (wrong) disagreements.push(`round ${round}: ${wrong}`);
      }
      expect(disagreements).toEqual([]);
    });
  });

  it('applies a role change made through one replica on the other at its next request (two instances, one database)', async () => {
    const second = await startTestApp({ ACTOR_CACHE_TTL: '60s' }, {}, app.database);
    try {
      const role = (await create({ name: unique('shared'), permissions: ['users:read'] })).body;
      const person = await holder(role._id, role.name);
      // Each replica signs with a key of its own (its DATA_DIR): tokens for the second come from it.
      const personThere = await second.signIn(person.username, person.password);
      const adminThere = await second.signIn();
      // Both replicas have resolved (and cached) the holder and the roles.
      expect((await second.request('GET', '/v1/users', { token: personThere })).status).toBe(200);
      expect((await second.request('GET', `/v1/roles/${role._id}`, { token: adminThere })).body.permissions).toEqual(['users:read']);
      expect((await patch(role._id, { permissions: [] })).status).toBe(200);
      expect((await second.request('GET', '/v1/users', { token: personThere })).status).toBe(403);
      expect((await second.request('GET', `/v1/roles/${role._id}`, { token: adminThere })).body.permissions).toEqual([]);
    } finally {
      await second.api.close();
    }
  });
});
