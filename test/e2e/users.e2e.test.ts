import type { Role } from '../../src/domain/roles/role';
import { SEEDED_ROLES } from '../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { startTestApp, type TestApp } from '../support/test-app';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const member: Role = { id: SEEDED_ROLES.member, name: 'member', permissions: [] };

describe('users', () => {
  let app: TestApp;
  let adminToken: string;
  let adminId: string;

  beforeAll(async () => {
    app = await startTestApp();
    adminToken = await app.signIn();
    const list = await app.request('GET', '/v1/users', { token: adminToken });
    adminId = list.body.users[0]._id;
  });
  afterAll(async () => app.close());

  const invite = (json: unknown, token = adminToken) => app.request('POST', '/v1/users/invite', { token, json });

  describe('POST /v1/users/invite', () => {
    it('creates a pending member with an empty 201, its Location, and an outbox event in the database', async () => {
      const response = await invite({ email: 'New.Person@Example.com', name: 'New Person' });
      expect(response.status).toBe(201);
      expect(response.text).toBe('');

      const list = await app.request('GET', '/v1/users?page_size=100', { token: adminToken });
      const invited = list.body.users.find((u: { email: string }) => u.email === 'New.Person@Example.com');
      expect(invited).toEqual({
        _id: expect.any(String),
        name: 'New Person',
        email: 'New.Person@Example.com',
        role: { _id: SEEDED_ROLES.member, name: 'member', permissions: [] },
        invited_date: expect.stringMatching(ISO_MS),
        invited_by: adminId,
      });
      expect(response.headers.get('location')).toBe(`/v1/users/${invited._id}`);

      const rows = await app.api.container.cradle.dataSource.query(
        'SELECT type, aggregate_id, payload FROM outbox_events WHERE aggregate_id = ?',
        [invited._id],
      );
      expect(rows).toHaveLength(1);
      // Recorded with the user. Published or not yet: the relay, nudged by that commit, may have sent it already
      // (CI at de09dda found it published, on MySQL 8); publishing has tests of its own (outbox-relay.*).
      expect(rows[0].type).toBe('UserInvited');
      expect(JSON.parse(rows[0].payload)).toMatchObject({ user_id: invited._id, email: 'New.Person@Example.com', invited_by: adminId });
    });

    it('gives the role asked for, by name or by _id', async () => {
      expect((await invite({ email: 'by-name@example.com', role: 'admin' })).status).toBe(201);
      expect((await invite({ email: 'by-id@example.com', role: SEEDED_ROLES.admin })).status).toBe(201);
      const list = await app.request('GET', '/v1/users?page_size=100', { token: adminToken });
      for (const email of ['by-name@example.com', 'by-id@example.com']) {
        expect(list.body.users.find((u: { email: string }) => u.email === email).role.name).toBe('admin');
      }
    });

    it('answers 409 when the e-mail belongs to a user in any case', async () => {
      expect((await invite({ email: 'twice@example.com' })).status).toBe(201);
      const again = await invite({ email: 'TWICE@example.COM' });
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('EMAIL_TAKEN');
      const joined = await invite({ email: 'ADMIN@example.com' });
      expect(joined.status).toBe(409);
    });

    it('answers 409 to a look-alike spelling of a taken address, 400 to one with an invisible character, and finds it by either spelling (#22)', async () => {
      // "é" precomposed, then "e" + a combining acute accent: one address, so one user.
      const created = await invite({ email: 'jos\u00e9.alike@example.com', name: 'Jos\u00e9 Alike' });
      expect(created.status).toBe(201);
      const decomposed = await invite({ email: 'JOSE\u0301.alike@example.com' });
      expect(decomposed.status).toBe(409);
      expect(decomposed.body.code).toBe('EMAIL_TAKEN');
      // The other way round, in the domain this time.
      expect((await invite({ email: 'ana@bu\u0308cher-alike.de' })).status).toBe(201);
      expect((await invite({ email: 'ana@b\u00fccher-alike.de' })).status).toBe(409);
      // The domain as DNS reads it: its ASCII form, and full-width letters, are one mailbox with it.
      expect((await invite({ email: 'ana@xn--bcher-alike-thb.de' })).status).toBe(409);
      expect((await invite({ email: 'bob.alike@\uff25\uff38\uff21\uff2d\uff30\uff2c\uff25.com' })).status).toBe(201);

      expect((await invite({ email: 'bob.alike@example.com' })).status).toBe(409);
      for (const hidden of ['bob.alike\u200b@example.com', 'bob\u200d.alike@example.com', '\u202ebob.alike@example.com', 'bob.al\u00adike@example.com']) {
        const refused = await invite({ email: hidden });
        expect({ hidden, status: refused.status, type: refused.headers.get('content-type'), body: refused.body }).toEqual({
          hidden,
          status: 400,
          type: expect.stringMatching(/^application\/problem\+json/),
          body: expect.objectContaining({
            code: 'VALIDATION_FAILED',
            errors: [{ field: 'email', message: 'must not contain invisible or control characters (such as a zero-width space)' }],
          }),
        });
      }

      const list = (query: string) => app.request('GET', `/v1/users?${query}`, { token: adminToken });
      for (const query of [`email=${encodeURIComponent('jose\u0301.alike@example.com')}`, `q=${encodeURIComponent('Jose\u0301 Ali')}`, `q=${encodeURIComponent('JOSE\u0301.A')}`]) {
        const found = await list(query);
        expect({ query, status: found.status, emails: found.body.users?.map((u: { email: string }) => u.email) }).toEqual({
          query,
          status: 200,
          emails: ['jos\u00e9.alike@example.com'],
        });
      }
      const all = await app.request('GET', '/v1/users?page_size=100', { token: adminToken });
      expect(all.body.users.map((u: { email: string }) => u.email).filter((e: string) => /alike/.test(e)).sort()).toEqual(
        ['ana@b\u00fccher-alike.de', 'bob.alike@\uff25\uff38\uff21\uff2d\uff30\uff2c\uff25.com', 'jos\u00e9.alike@example.com'].sort(),
      );
    });

    it('answers 409 to simultaneous invitations of one address, and creates one user', async () => {
      const responses = await Promise.all(Array.from({ length: 5 }, () => invite({ email: 'race@example.com' })));
      expect(responses.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
      const rows = await app.api.container.cradle.dataSource.query("SELECT COUNT(*) AS n FROM users WHERE email_key = 'race@example.com'");
      expect(Number(rows[0].n)).toBe(1);
    });

    it.each([
      [{}, 'email'],
      [{ email: '' }, 'email'],
      [{ email: 'not-an-address' }, 'email'],
      [{ email: 'a@b' }, 'email'],
      [{ email: `${'x'.repeat(250)}@example.com` }, 'email'],
      [{ email: 42 }, 'email'],
      [{ email: 'ok@example.com', name: '' }, 'name'],
      [{ email: 'ok@example.com', role: '' }, 'role'],
    ])('answers 400 naming the field for %j', async (body, field) => {
      const response = await invite(body);
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('VALIDATION_FAILED');
      expect(response.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    });

    it('answers 400 for a role that does not exist', async () => {
      const response = await invite({ email: 'ghost-role@example.com', role: 'superuser' });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('ROLE_NOT_FOUND');
    });

    it('refuses fields a client may not set, naming them (mass assignment), and creates no one', async () => {
      for (const [field, value] of Object.entries({ _id: 'chosen-id', joined_date: '2020-01-01T00:00:00.000Z', invited_by: 'someone-else', permissions: ['users:read'] })) {
        const refused = await invite({ email: 'mass@example.com', [field]: value });
        expect({ field, status: refused.status, errors: refused.body.errors }).toEqual({ field, status: 400, errors: [{ field, message: 'is not a field of this request' }] });
      }
      const none = await app.request('GET', '/v1/users?page_size=100', { token: adminToken });
      expect(none.body.users.map((u: { email: string }) => u.email)).not.toContain('mass@example.com');
      const response = await invite({ email: 'mass@example.com' });
      expect(response.status).toBe(201);
      const list = await app.request('GET', '/v1/users?page_size=100', { token: adminToken });
      const user = list.body.users.find((u: { email: string }) => u.email === 'mass@example.com');
      expect(user._id).not.toBe('chosen-id');
      expect(user).not.toHaveProperty('joined_date');
      expect(user.invited_by).toBe(adminId);
      expect(user.role.name).toBe('member');
    });

    it('answers 403 when the role holds a permission the inviter lacks', async () => {
      const inviterRole = '01a1fc99-0000-7000-8000-000000000001';
      await app.addRole({ id: inviterRole, name: 'inviter', permissions: ['users:invite'] });
      await app.addJoinedUser({
        username: 'inviter',
        password: 'inviter-password-1',
        email: 'inviter@example.com',
        role: { id: inviterRole, name: 'inviter', permissions: ['users:invite'] },
      });
      const token = await app.signIn('inviter', 'inviter-password-1');
      const escalate = await invite({ email: 'would-be-admin@example.com', role: 'admin' }, token);
      expect(escalate.status).toBe(403);
      expect(escalate.body.code).toBe('PERMISSION_DENIED');
      expect((await invite({ email: 'plain-member@example.com' }, token)).status).toBe(201);
      expect((await invite({ email: 'same-role@example.com', role: 'inviter' }, token)).status).toBe(201);
    });
  });

  describe('permissions per endpoint', () => {
    let memberToken: string;

    beforeAll(async () => {
      await app.addJoinedUser({ username: 'plain.member', password: 'member-password-1', email: 'member@example.com', role: member });
      memberToken = await app.signIn('plain.member', 'member-password-1');
    });

    it.each([
      ['GET', '/v1/users', undefined],
      ['POST', '/v1/users/invite', { email: 'blocked@example.com' }],
      ['GET', '/v1/permissions', undefined],
    ])('a member gets 403 on %s %s', async (method, path, json) => {
      const response = await app.request(method, path, { token: memberToken, json });
      expect(response.status).toBe(403);
      expect(response.body.code).toBe('PERMISSION_DENIED');
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    });
  });

  describe('GET /v1/users pagination', () => {
    let total: number;

    beforeAll(async () => {
      for (let i = 0; i < 23; i++) expect((await invite({ email: `page${String(i).padStart(2, '0')}@example.com` })).status).toBe(201);
      total = (await app.request('GET', '/v1/users', { token: adminToken })).body.pagination.total_document;
    });

    it('defaults to page 1 of 10', async () => {
      const response = await app.request('GET', '/v1/users', { token: adminToken });
      expect(response.status).toBe(200);
      expect(response.body.users).toHaveLength(10);
      expect(response.body.pagination).toEqual({ page: 1, page_size: 10, page_count: Math.ceil(total / 10), total_document: total });
    });

    it('walks every user once, in a stable order, across pages', async () => {
      const seen: string[] = [];
      const pageCount = Math.ceil(total / 7);
      for (let page = 1; page <= pageCount; page++) {
        const response = await app.request('GET', `/v1/users?page=${page}&page_size=7`, { token: adminToken });
        expect(response.body.pagination).toEqual({ page, page_size: 7, page_count: pageCount, total_document: total });
        seen.push(...response.body.users.map((u: { _id: string }) => u._id));
      }
      expect(seen).toHaveLength(total);
      expect(new Set(seen).size).toBe(total);
      expect(seen[0]).toBe(adminId);
    });

    // PRODUCT.md: `page` is any positive integer, and a page past the end an empty page with the true counts; the
    // largest is the largest a number holds exactly. The filtered lists read their pages apart from the whole list's.
    it.each([
      ['', 999, 10],
      ['', 1_000_000_001, 10],
      ['', Number.MAX_SAFE_INTEGER, 100],
      ['&status=pending', Number.MAX_SAFE_INTEGER, 100],
      ['&q=page', 2 ** 32, 1],
    ])('answers a page past the end (filter "%s", page %d of %d) with an empty list and the true counts', async (filter, page, size) => {
      const counted = await app.request('GET', `/v1/users?page_size=1${filter}`, { token: adminToken });
      const matches: number = counted.body.pagination.total_document;
      expect(matches).toBeGreaterThan(0);
      const response = await app.request('GET', `/v1/users?page=${page}&page_size=${size}${filter}`, { token: adminToken });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        users: [],
        pagination: { page, page_size: size, page_count: Math.ceil(matches / size), total_document: matches },
      });
    });

    it('counts pages exactly when the total is a multiple of the page size', async () => {
      const response = await app.request(`GET`, `/v1/users?page_size=${total}`, { token: adminToken });
      expect(response.body.pagination.page_count).toBe(1);
      const last = await app.request('GET', `/v1/users?page=2&page_size=${total}`, { token: adminToken });
      expect(last.body.users).toEqual([]);
    });

    it('accepts page_size 100 and shows pending users without unknown fields', async () => {
      const response = await app.request('GET', '/v1/users?page_size=100', { token: adminToken });
      expect(response.status).toBe(200);
      const pending = response.body.users.find((u: { email: string }) => u.email === 'page00@example.com');
      expect(Object.keys(pending).sort()).toEqual(['_id', 'email', 'invited_by', 'invited_date', 'role']);
      for (const user of response.body.users) {
        expect(JSON.stringify(user)).not.toMatch(/password|argon2/i);
        expect(user.invited_date).toMatch(ISO_MS);
        if (user.joined_date) expect(user.joined_date).toMatch(ISO_MS);
      }
    });

    it.each(['page=0', 'page=-1', 'page=abc', 'page=1.5', 'page=', 'page=1e3', 'page=%201', 'page=0x10', 'page=1&page=2',
      'page_size=0', 'page_size=101', 'page_size=-5', 'page_size=ten', 'page=9007199254740992', 'page=99999999999999999999'])(
      'answers 400 for %s',
      async (query) => {
        const response = await app.request('GET', `/v1/users?${query}`, { token: adminToken });
        expect(response.status).toBe(400);
        expect(response.body.code).toBe('VALIDATION_FAILED');
        // A parameter given twice is told so, not as a bad number.
        if (query === 'page=1&page=2') expect(response.body.errors).toEqual([{ field: 'page', message: 'is given more than once' }]);
        // A number past 2^53 - 1 is told its bound, not read as a nearby number.
        if (query.startsWith('page=9') && query.length > 20) expect(response.body.errors).toEqual([{ field: 'page', message: 'must be <= 9007199254740991' }]);
      },
    );
  });

  describe('GET /v1/users filters', () => {
    const emails = (response: { body: { users: { email: string }[] } }) => response.body.users.map((u) => u.email);
    const list = (query: string) => app.request('GET', `/v1/users${query}`, { token: adminToken });

    beforeAll(async () => {
      expect((await invite({ email: 'Filter.One@Example.com', name: 'Quinn Filterson' })).status).toBe(201);
      expect((await invite({ email: 'flt-two@example.com', name: 'Zed Quux', role: 'admin' })).status).toBe(201);
      await app.addJoinedUser({ username: 'Flt.Joined', password: 'joined-password-1', email: 'joined.flt@example.com', role: member });
    });

    it.each([
      ['?q=quinn', '?filter[q]=quinn', '?filter%5Bq%5D=QUINN', '?q=quinn&filter[q]=quinn'],
      ['?email=filter.one@example.com', '?filter[email]=FILTER.ONE@example.com', '?filter%5Bemail%5D=Filter.One%40Example.com'],
    ])('takes both spellings of a filter alike: %s', async (...queries) => {
      for (const query of queries) {
        const response = await list(query);
        expect({ query, status: response.status, emails: emails(response), total: response.body.pagination.total_document }).toEqual({
          query,
          status: 200,
          emails: ['Filter.One@Example.com'],
          total: 1,
        });
      }
    });

    it('finds by q the start of a name, a username or an e-mail, in any case, with the count of matches', async () => {
      expect(emails(await list('?q=QUINN%20FILT'))).toEqual(['Filter.One@Example.com']);
      expect(emails(await list('?q=flt.j'))).toEqual(['joined.flt@example.com']);
      expect(emails(await list('?q=JOINED.F'))).toEqual(['joined.flt@example.com']);
      const byEmail = await list('?q=FLT-&page_size=1');
      expect({ emails: emails(byEmail), pagination: byEmail.body.pagination }).toEqual({
        emails: ['flt-two@example.com'],
        pagination: { page: 1, page_size: 1, page_count: 1, total_document: 1 },
      });
      expect(emails(await list('?q=filterson'))).toEqual([]);
      expect(emails(await list('?q=f%25'))).toEqual([]);
    });

    it('combines role, status and q with AND, the role by name or _id', async () => {
      expect(emails(await list('?role=admin&status=pending&q=flt'))).toEqual(['flt-two@example.com']);
      expect(emails(await list(`?filter[role]=${SEEDED_ROLES.admin}&q=zed`))).toEqual(['flt-two@example.com']);
      expect(emails(await list('?role=member&q=flt'))).toEqual(['joined.flt@example.com']);
      expect(emails(await list('?role=member&status=active&q=f'))).toEqual(['joined.flt@example.com']);
      expect(emails(await list('?role=admin&status=active&q=flt'))).toEqual([]);
      const admins = await list('?role=admin&page_size=100');
      expect(admins.body.users.every((u: { role: { name: string } }) => u.role.name === 'admin')).toBe(true);
      expect(admins.body.pagination.total_document).toBe(admins.body.users.length);
    });

    it("shows the process's own writes in the role and status totals at once (they are cached)", async () => {
      const totals = async () => {
        const queries = ['?status=deactivated', '?status=active', '?status=pending', '?role=member&status=active', '?role=admin'];
        const entries = await Promise.all(queries.map(async (q) => [q, (await list(q)).body.pagination.total_document as number] as const));
        return Object.fromEntries(entries);
      };
      // Read twice: the second list answers from the cached totals.
      await totals();
      const before = await totals();
      const joined = (await list('?email=joined.flt@example.com')).body.users[0]._id as string;
      expect((await app.request('POST', `/v1/users/${joined}/deactivate`, { token: adminToken })).status).toBe(200);
      expect(await totals()).toEqual({
        ...before,
        '?status=deactivated': before['?status=deactivated']! + 1,
        '?status=active': before['?status=active']! - 1,
        '?role=member&status=active': before['?role=member&status=active']! - 1,
      });
      expect(emails(await list('?status=deactivated&page_size=100'))).toContain('joined.flt@example.com');
      expect((await app.request('POST', `/v1/users/${joined}/reactivate`, { token: adminToken })).status).toBe(200);
      expect(await totals()).toEqual(before);
      const invited = await invite({ email: 'flt-three@example.com', role: 'admin' });
      expect(invited.status).toBe(201);
      expect(await totals()).toEqual({ ...before, '?status=pending': before['?status=pending']! + 1, '?role=admin': before['?role=admin']! + 1 });
      expect((await app.request('DELETE', invited.headers.get('location')!, { token: adminToken })).status).toBe(204);
      expect(await totals()).toEqual(before);
    });

    it.each([
      ['?status=active&filter[status]=pending', 'status', '"status" and "filter[status]" disagree'],
      ['?q=a&filter%5Bq%5D=b', 'q', '"q" and "filter[q]" disagree'],
      ['?status=joined', 'status', undefined],
      ['?filter[status]=ACTIVE', 'filter[status]', undefined],
      ['?email=not-an-address', 'email', undefined],
      ['?q=%20%20', 'q', 'must not be blank'],
      ['?role=', 'role', undefined],
      ['?filter[q]=', 'filter[q]', undefined],
      ['?email=', 'email', undefined],
      // A mistyped or unknown parameter is named, never ignored into a list of every user.
      ['?filter[stauts]=active', 'filter[stauts]', 'is not a field of this request'],
      ['?statuses=active', 'statuses', 'is not a field of this request'],
    ])('answers 400 VALIDATION_FAILED to %s, naming the field', async (query, field, message) => {
      const response = await list(query);
      expect({ status: response.status, code: response.body.code }).toEqual({ status: 400, code: 'VALIDATION_FAILED' });
      expect(response.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field, ...(message ? { message } : {}) })]));
    });

    it('answers 400 ROLE_NOT_FOUND to a role that names no role, rather than an empty page', async () => {
      for (const query of ['?role=no-such-role', '?filter[role]=Admin', `?role=${SEEDED_ROLES.admin.replace(/.$/, '0')}`]) {
        const response = await list(query);
        expect({ query, status: response.status, code: response.body.code }).toEqual({ query, status: 400, code: 'ROLE_NOT_FOUND' });
      }
    });
  });
});
