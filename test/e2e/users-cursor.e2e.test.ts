import { SEEDED_ROLES } from '../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { startTestApp, type TestApp } from '../support/test-app';

type Listed = { status: number; headers: Headers; body: { users: { _id: string; email: string }[]; pagination: Record<string, number>; next?: string; code?: string } };

/** GET /v1/users by cursor (issue #26): the walk a sync job makes, beside the page form, and what it refuses. */
describe('users: the cursor walk', () => {
  let app: TestApp;
  let token: string;
  const list = (query: string): Promise<Listed> => app.request('GET', query.startsWith('/') ? query : `/v1/users?${query}`, { token }) as Promise<Listed>;
  const invite = async (email: string, role?: string) => expect((await app.request('POST', '/v1/users/invite', { token, json: { email, role } })).status).toBe(201);
  const nextOf = (response: Listed) => /^<([^>]+)>; rel="next"$/.exec(response.headers.get('link') ?? '')?.[1];

  beforeAll(async () => {
    app = await startTestApp();
    token = await app.signIn();
    for (let i = 0; i < 24; i++) await invite(`walk${String(i).padStart(2, '0')}@example.com`, i % 4 === 0 ? 'admin' : undefined);
  });
  afterAll(async () => app.close());

  /** Every user by the page form, as the list orders them. */
  const byPages = async (query = '') => {
    const first = await list(`page_size=100${query}`);
    return first.body.users.map((u) => u._id);
  };

  it('walks every user once by following next from page 1, the same sequence as the pages, with users added mid-walk at its end', async () => {
    const before = await byPages();
    expect(before.length).toBe(25);
    const seen: string[] = [];
    let response = await list('page_size=7');
    const pages: number[] = [response.body.pagination.page!];
    seen.push(...response.body.users.map((u) => u._id));
    expect(response.body.next).toBeUndefined(); // the page form's body is as the contract has it; the link is a header
    let target = nextOf(response);
    let added = false;
    while (target) {
      response = await list(target);
      expect(response.status).toBe(200);
      expect(response.body.next ?? undefined).toBe(nextOf(response));
      pages.push(response.body.pagination.page!);
      seen.push(...response.body.users.map((u) => u._id));
      if (!added) {
        added = true;
        await invite('walk-late@example.com');
      }
      target = response.body.next;
    }
    const after = await byPages();
    expect(seen).toEqual(after);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(pages).toEqual([1, 2, 3, 4]);
    expect(response.body.pagination).toEqual({ page: 4, page_size: 7, page_count: 4, total_document: 26 });
  });

  it('keeps the filters and page_size in next, and counts the filter', async () => {
    const admins = await byPages('&role=admin');
    const first = await list('role=admin&page_size=2');
    const target = nextOf(first)!;
    expect(target).toMatch(/^\/v1\/users\?after=[0-9a-f-]{36}&page_size=2&role=admin$/);
    const second = await list(target);
    expect([...first.body.users, ...second.body.users].map((u) => u._id)).toEqual(admins.slice(0, 4));
    expect(second.body.pagination).toEqual({ page: 2, page_size: 2, page_count: Math.ceil(admins.length / 2), total_document: admins.length });
    expect(second.body.next).toBe(nextOf(second));
  });

  it('takes a cursor in either case, and one that names no user, where its id falls', async () => {
    const ids = await byPages();
    const upper = await list(`after=${ids[3]!.toUpperCase()}&page_size=2`);
    expect(upper.body.users.map((u) => u._id)).toEqual(ids.slice(4, 6));
    const end = await list('after=ffffffff-ffff-7fff-bfff-ffffffffffff');
    expect({ status: end.status, users: end.body.users, next: end.body.next, link: end.headers.get('link') }).toEqual({ status: 200, users: [], next: undefined, link: null });
    expect(end.body.pagination.total_document).toBe(ids.length);
    const filtered = await list(`after=00000000-0000-0000-0000-000000000000&role=${SEEDED_ROLES.admin}&page_size=1`);
    expect(filtered.body.pagination.page).toBe(1);
  });

  it.each([
    'after=not-a-cursor',
    'after=',
    'after=0192f0c4-aaaa-7bbb-8ccc-dddddddddddd%27%20OR%201%3D1',
    'after=0192f0c4-aaaa-7bbb-8ccc-dddddddddddd&page=2',
    'after=0192f0c4-aaaa-7bbb-8ccc-dddddddddddd&page=1',
    'after=0192f0c4-aaaa-7bbb-8ccc-dddddddddddd&after=0192f0c4-aaaa-7bbb-8ccc-ddddddddddde',
    'after=0192f0c4-aaaa-7bbb-8ccc-dddddddddddd&page_size=0',
    'after=0192f0c4-aaaa-7bbb-8ccc-dddddddddddd&page_size=101',
    'after=g192f0c4-aaaa-7bbb-8ccc-dddddddddddd',
    'filter[after]=x',
  ])('answers 400 problem+json for %s, never a 500', async (query) => {
    const response = await list(query);
    expect(response.status).toBe(400); // `filter[after]` too: not a parameter of this list, so named, as any unknown one
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(response.body.code).toBe('VALIDATION_FAILED');
  });

  it('answers any page of the page form exactly, deep ones included', async () => {
    const ids = await byPages();
    for (const [page, size] of [[1, 3], [4, 3], [9, 3], [10, 3], [5, 5], [6, 5], [2, 13]] as const) {
      const response = await list(`page=${page}&page_size=${size}`);
      expect(response.body.users.map((u) => u._id)).toEqual(ids.slice((page - 1) * size, page * size));
      expect(response.body.pagination.total_document).toBe(ids.length);
    }
  });
});
