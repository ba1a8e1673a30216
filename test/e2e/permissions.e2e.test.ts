import { startTestApp, type TestApp } from '../support/test-app';

describe('GET /v1/permissions', () => {
  let app: TestApp;
  let token: string;

  beforeAll(async () => {
    app = await startTestApp();
    token = await app.signIn();
  });
  afterAll(async () => app.close());

  /** Every seeded permission, by group then name. */
  const ALL = ['audit:read', 'permissions:read', 'roles:read', 'roles:write', 'service-accounts:read', 'service-accounts:write', 'tokens:introspect', 'users:deactivate', 'users:delete', 'users:invite', 'users:read', 'users:update'];
  const USERS_GROUP = ALL.filter((name) => name.startsWith('users:'));
  const list = (query = '') => app.request('GET', `/v1/permissions${query}`, { token });
  const names = (response: { body: { permissions: { name: string }[] } }) => response.body.permissions.map((p) => p.name);

  it('lists every permission with _id, group and name, and the pagination object', async () => {
    const response = await list('?page_size=100');
    expect(response.status).toBe(200);
    expect(response.body.permissions).toHaveLength(ALL.length);
    for (const p of response.body.permissions) expect(Object.keys(p).sort()).toEqual(['_id', 'group', 'name']);
    expect(names(response)).toEqual(ALL);
    expect(response.body.pagination).toEqual({ page: 1, page_size: 100, page_count: 1, total_document: ALL.length });
    // The default page is the first 10.
    const first = await list();
    expect(names(first)).toEqual(ALL.slice(0, 10));
    expect(first.body.pagination).toEqual({ page: 1, page_size: 10, page_count: Math.ceil(ALL.length / 10), total_document: ALL.length });
  });

  it.each([
    ['?group=users', '?filter[group]=users', '?filter%5Bgroup%5D=users'],
    ['?name=users:read', '?filter[name]=users:read', '?filter%5Bname%5D=users%3Aread'],
    ['?group=users&name=users:invite', '?filter[group]=users&filter[name]=users:invite', '?filter%5Bgroup%5D=users&filter%5Bname%5D=users%3Ainvite'],
  ])('gives identical results for %s, %s and %s', async (plain, bracket, encoded) => {
    const [a, b, c] = await Promise.all([list(plain), list(bracket), list(encoded)]);
    expect(a.status).toBe(200);
    expect(b.body).toEqual(a.body);
    expect(c.body).toEqual(a.body);
    expect(a.body.permissions.length).toBeGreaterThan(0);
  });

  it('filters by exact match only', async () => {
    expect(names(await list('?group=users'))).toEqual(USERS_GROUP);
    expect(names(await list('?name=users:read'))).toEqual(['users:read']);
    expect((await list('?group=user')).body.pagination.total_document).toBe(0);
    expect((await list('?group=Users')).body.permissions).toEqual([]);
    expect((await list('?group=%25')).body.permissions).toEqual([]);
    expect((await list('?group=permissions&name=users:read')).body.permissions).toEqual([]);
  });

  it('accepts both spellings of one filter when they agree, and refuses them when they differ', async () => {
    expect(names(await list('?group=users&filter[group]=users'))).toEqual(USERS_GROUP);
    const conflict = await list('?group=users&filter[group]=permissions');
    expect(conflict.status).toBe(400);
    expect(conflict.body.errors).toEqual([expect.objectContaining({ field: 'group' })]);
  });

  it('pages the filtered list with filtered counts', async () => {
    const page2 = await list('?group=users&page=2&page_size=1');
    const count = USERS_GROUP.length;
    expect(page2.body).toEqual({
      permissions: [expect.objectContaining({ name: USERS_GROUP[1] })],
      pagination: { page: 2, page_size: 1, page_count: count, total_document: count },
    });
    const past = await list(`?group=users&page=${count + 1}&page_size=1`);
    expect(past.body).toEqual({ permissions: [], pagination: { page: count + 1, page_size: 1, page_count: count, total_document: count } });
    const furthest = await list(`?group=users&page=${Number.MAX_SAFE_INTEGER}&page_size=1`);
    expect(furthest.body).toEqual({ permissions: [], pagination: { page: Number.MAX_SAFE_INTEGER, page_size: 1, page_count: count, total_document: count } });
  });

  it.each(['?group=a&group=a', '?name=users:read&name=users:read', '?filter[group]=users&filter[group]=users'])('says %s gives a filter more than once', async (query) => {
    const response = await list(query);
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([{ field: expect.stringMatching(/group|name/), message: 'is given more than once' }]);
  });

  it.each(['?page=0', '?page_size=101', '?page=x', '?group=', '?group=a&group=b', `?name=${'n'.repeat(200)}`, '?filter[gruop]=users', '?groups=users'])(
    'answers 400 for %s',
    async (query) => {
      expect((await list(query)).status).toBe(400);
    },
  );
});
