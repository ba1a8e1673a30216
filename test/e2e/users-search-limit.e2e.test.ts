import { SEEDED_ROLES } from '../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { rebuildUserListIndex } from '../../src/infrastructure/persistence/typeorm/user-list-buckets';
import { startTestApp, type TestApp } from '../support/test-app';

/** Users whose e-mail and username start with "broad": enough that counting the prefix takes far longer than 1 ms. */
const BROAD_USERS = 30_000;

/**
 * SEARCH_TIME_LIMIT: a prefix search (`q`) that cannot be counted within it is stopped by the database and answered
 * 422 SEARCH_TOO_BROAD, by page and by cursor; the other filters are never bounded. SQLite has no statement limit:
 * there the same search is answered whole.
 */
describe('GET /v1/users?q=… past SEARCH_TIME_LIMIT', () => {
  let app: TestApp;
  let token: string;
  let sqlite: boolean;

  beforeAll(async () => {
    app = await startTestApp({ SEARCH_TIME_LIMIT: '1ms' });
    token = await app.signIn();
    const dataSource = app.api.container.cradle.dataSource;
    sqlite = ['better-sqlite3', 'sqljs'].includes(dataSource.options.type);
    // Written as a bulk import would (one statement), then the page index built again, as user-list-buckets.ts asks.
    const digits = Array.from({ length: 10 }, (_, n) => `SELECT ${n} AS n`).join(' UNION ALL ');
    const n = 'a.n * 10000 + b.n * 1000 + c.n * 100 + d.n * 10 + e.n';
    const [id, name, email] = sqlite
      ? [`'00000000-0000-7000-8000-' || printf('%012d', ${n})`, `'broad' || printf('%05d', ${n})`, `'broad' || printf('%05d', ${n}) || '@example.com'`]
      : [`CONCAT('00000000-0000-7000-8000-', LPAD(${n}, 12, '0'))`, `CONCAT('broad', LPAD(${n}, 5, '0'))`, `CONCAT('broad', LPAD(${n}, 5, '0'), '@example.com')`];
    await dataSource.query(
      'INSERT INTO users (id, email, email_key, username, username_key, name, name_key, role_id, invited_at, status) ' +
        `SELECT ${id}, ${email}, ${email}, ${name}, ${name}, 'Someone', 'someone', ?, ?, 'pending' ` +
        `FROM (${digits}) a, (${digits}) b, (${digits}) c, (${digits}) d, (${digits}) e WHERE ${n} < ${BROAD_USERS}`,
      [SEEDED_ROLES.member, '2026-01-01 00:00:00.000'],
    );
    await rebuildUserListIndex(dataSource);
  }, 120_000);
  afterAll(async () => app.close());

  it('answers a prefix of every added user with 422 SEARCH_TOO_BROAD on MySQL and MariaDB, by page and by cursor', async () => {
    for (const path of ['/v1/users?q=broad&page=1000', '/v1/users?q=broad', `/v1/users?q=broad&after=00000000-0000-7000-8000-000000010000`]) {
      const answer = await app.request('GET', path, { token });
      if (sqlite) {
        expect(answer.status).toBe(200);
        expect(answer.body.pagination.total_document).toBe(BROAD_USERS);
        continue;
      }
      expect({ path, status: answer.status, type: answer.headers.get('content-type') }).toEqual({ path, status: 422, type: expect.stringContaining('application/problem+json') });
      expect(answer.body).toMatchObject({ status: 422, code: 'SEARCH_TOO_BROAD', detail: expect.stringContaining('type more') });
    }
  });

  it('answers an e-mail filter asked for together with broad searches, each page on its own', async () => {
    // Asked for while the first search runs, the rest were loaded as one batch, and the broad search's time-out
    // answered every page of it 422, the e-mail's too (review of 2026-12-07).
    const answers = await Promise.all(
      ['/v1/users?q=broad', '/v1/users?q=broad&page=2', '/v1/users?email=broad00007%40example.com', '/v1/users?q=broad&page=3'].map((path) => app.request('GET', path, { token })),
    );
    expect(answers[2]!.status).toBe(200);
    expect(answers[2]!.body.users.map((user: { email: string }) => user.email)).toEqual(['broad00007@example.com']);
    for (const i of [0, 1, 3]) expect(answers[i]!.status).toBe(sqlite ? 200 : 422);
  });

  it('answers the other filters whole on the same users: the whole list and a status count every added user', async () => {
    const whole = await app.request('GET', '/v1/users?status=pending&page=2000', { token });
    expect(whole.status).toBe(200);
    expect(whole.body.pagination.total_document).toBe(BROAD_USERS);
    expect((await app.request('GET', '/v1/users?page=3001', { token })).body.pagination.total_document).toBe(BROAD_USERS + 1);
  });
});
