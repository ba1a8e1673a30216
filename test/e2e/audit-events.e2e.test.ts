import { randomUUID } from 'node:crypto';
import { SEEDED_ROLES } from '../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { startTestApp, type TestApp } from '../support/test-app';

/** GET /v1/audit-events and its export (#23), through the running service. */
describe('the audit trail over HTTP (#23)', () => {
  let app: TestApp;
  let admin: string;
  let counter = 0;
  const unique = (prefix: string) => `${prefix}${++counter}${randomUUID().slice(0, 6)}`;

  // Entries carry their seal, and the sealer links only those whose seal verifies.
  const AUDIT_SEAL_KEY = 'audit-events-e2e-seal-key-0123456789abcdef';

  /** The api's log lines (info and above). */
  const logs: string[] = [];

  beforeAll(async () => {
    app = await startTestApp({ AUDIT_SEAL_KEY, LOG_LEVEL: 'info' }, {}, undefined, { write: (line) => logs.push(line) });
    admin = await app.signIn();
  });
  afterAll(async () => app.close());

  const events = (query: string, token = admin) => app.request('GET', `/v1/audit-events${query}`, { token });

  const member = async () => {
    const username = unique('member');
    const password = `${username}-long-password`;
    const user = await app.addJoinedUser({ username, password, email: `${username}@example.com`, role: { id: SEEDED_ROLES.member, name: 'member', permissions: [] } });
    return { user, username, password };
  };

  it('answers who changed a user’s role: from → to, by whom, from where, in which request', async () => {
    const { user } = await member();
    const changed = await app.request('PATCH', `/v1/users/${user.id}`, { token: admin, json: { role: 'admin' }, headers: { 'user-agent': 'audit-e2e/1.0', 'x-request-id': 'audit-e2e-role' } });
    expect(changed.status).toBe(200);

    const answer = await events(`?target=${user.id}&action=user.role_changed`);

    expect(answer.status).toBe(200);
    expect(answer.body.audit_events).toEqual([
      expect.objectContaining({
        action: 'user.role_changed',
        outcome: 'success',
        actor: expect.objectContaining({ type: 'user', name: 'admin' }),
        target: { type: 'user', _id: user.id, snapshot: user.username },
        source: { address: expect.any(String), user_agent: 'audit-e2e/1.0' },
        request_id: 'audit-e2e-role',
        changes: [{ field: 'role', before: 'member', after: 'admin' }],
      }),
    ]);
    expect(answer.body.next).toBeNull();
  });

  it('keeps a request id as long as the service takes (128 characters) whole, and finds its entries by it', async () => {
    const { user } = await member();
    const requestId = `audit-e2e-long-${randomUUID()}-`.padEnd(128, 'x');
    const changed = await app.request('PATCH', `/v1/users/${user.id}`, { token: admin, json: { name: 'Long Request' }, headers: { 'x-request-id': requestId } });
    expect([changed.status, changed.headers.get('x-request-id')]).toEqual([200, requestId]);

    const answer = await events(`?request_id=${requestId}`);
    const all = await events(`?target=${user.id}`);

    expect(answer.status).toBe(200);
    expect(all.body.audit_events.map((e: { action: string; request_id: string }) => [e.action, e.request_id])).toEqual([['user.updated', requestId]]);
    expect(answer.body.audit_events.map((e: { action: string; request_id: string }) => [e.action, e.request_id])).toEqual([['user.updated', requestId]]);
  });

  it('keeps a refused sign-in’s reason, which the caller never sees', async () => {
    const { user, username } = await member();
    const refused = await app.request('POST', '/v1/auth/signin', { json: { username, password: 'not-the-password-at-all' } });
    expect(refused.status).toBe(401);
    expect(refused.text).not.toContain('wrong_password');

    const answer = await events(`?target=${user.id}&action=auth.signin&outcome=failure`);

    expect(answer.body.audit_events.map((e: { code: string }) => e.code)).toEqual(['wrong_password']);
    expect(answer.text).not.toContain('not-the-password-at-all');
  });

  it('keeps a name typed for no account as a pseudonym, never its text: it may be a password typed into the wrong field', async () => {
    const typed = `correct horse battery staple ${randomUUID().slice(0, 6)}`;
    const other = `${typed} again`;
    for (const username of [typed, typed, other]) {
      expect((await app.request('POST', '/v1/auth/signin', { json: { username, password: 'whatever-was-typed-here' } })).status).toBe(401);
    }
    const answer = await events('?action=auth.signin_failed&outcome=failure&page_size=3');
    const snapshots = answer.body.audit_events.map((e: { code: string; target: { snapshot: string } }) => [e.code, e.target.snapshot]);
    expect(snapshots).toEqual([
      ['unknown_user', expect.stringMatching(/^typed:[0-9a-f]{16}$/)],
      ['unknown_user', expect.stringMatching(/^typed:[0-9a-f]{16}$/)],
      ['unknown_user', expect.stringMatching(/^typed:[0-9a-f]{16}$/)],
    ]);
    // Newest first: the other name, then the same name twice under one pseudonym, so attempts still group.
    expect(snapshots[1][1]).toBe(snapshots[2][1]);
    expect(snapshots[0][1]).not.toBe(snapshots[1][1]);
    const exported = await app.request('GET', `/v1/audit-events/export?from=${new Date(Date.now() - 60_000).toISOString()}`, { token: admin });
    expect(exported.status).toBe(200);
    expect(`${answer.text}${exported.text}`).not.toContain('correct horse');
  });

  it('pages newest first with a `next` cursor, each entry once', async () => {
    const { user } = await member();
    for (const name of ['One', 'Two', 'Three']) expect((await app.request('PATCH', `/v1/users/${user.id}`, { token: admin, json: { name } })).status).toBe(200);

    const seen: string[] = [];
    let query = `?target=${user.id}&page_size=2`;
    for (let pages = 0; pages < 5; pages++) {
      const page = await events(query);
      seen.push(...page.body.audit_events.map((e: { changes: { after: string }[] }) => e.changes[0]!.after));
      if (!page.body.next) break;
      query = `?target=${user.id}&page_size=2&cursor=${page.body.next}`;
    }
    expect(seen).toEqual(['Three', 'Two', 'One']);
    // The Link header names the same next page, filters and size kept, as the user list's does.
    const first = await events(`?target=${user.id}&page_size=2`);
    expect(first.headers.get('link')).toBe(`</v1/audit-events?target=${user.id}&page_size=2&cursor=${first.body.next}>; rel="next"`);
    const linked = await app.request('GET', /^<([^>]+)>/.exec(first.headers.get('link')!)![1]!, { token: admin });
    expect(linked.body.audit_events.map((e: { changes: { after: string }[] }) => e.changes[0]!.after)).toEqual(['One']);
    expect(linked.headers.get('link')).toBeNull();
  });

  it('exports a time range as newline-delimited JSON, oldest first', async () => {
    const from = new Date(Date.now() - 60_000).toISOString();
    const { user } = await member();
    await app.request('PATCH', `/v1/users/${user.id}`, { token: admin, json: { name: 'Exported' } });

    const answer = await app.request('GET', `/v1/audit-events/export?from=${encodeURIComponent(from)}&target=${user.id}`, { token: admin });

    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const lines = answer.text.trim().split('\n').map((line) => JSON.parse(line) as { action: string });
    expect(lines.map((l) => l.action)).toEqual(['user.updated']);
  });

  it('reads a leap second (`23:59:60`) as the instant after `23:59:59`, not as a range that matches nothing', async () => {
    const { user } = await member();
    await app.request('PATCH', `/v1/users/${user.id}`, { token: admin, json: { name: 'Leap' } });
    const year = new Date().getUTCFullYear();
    for (const to of [`${year}-12-31T23:59:60Z`, `${year}-12-31T23:59:60.5Z`]) {
      const listed = await events(`?target=${user.id}&to=${encodeURIComponent(to)}`);
      expect({ to, status: listed.status, actions: listed.body.audit_events.map((e: { action: string }) => e.action) }).toEqual({ to, status: 200, actions: ['user.updated'] });
      const exported = await app.request('GET', `/v1/audit-events/export?from=${year}-01-01T00:00:00Z&to=${encodeURIComponent(to)}&target=${user.id}`, { token: admin });
      expect({ to, lines: exported.text.trim().split('\n').length }).toEqual({ to, lines: 1 });
    }
    // The same time with a second to spare before it: the entry is after it, so nothing.
    const before = await events(`?target=${user.id}&to=${encodeURIComponent(`${year - 1}-12-31T23:59:60Z`)}`);
    expect(before.body.audit_events).toEqual([]);
  });

  it('names the actor and the target of a refused change as a successful one does', async () => {
    const { user, username } = await member();
    const stale = await app.request('PATCH', `/v1/users/${user.id}`, { token: admin, json: { name: 'Stale' }, headers: { 'if-match': '"99"' } });
    expect(stale.status).toBe(409);
    const roleId = (await app.request('POST', '/v1/roles', { token: admin, json: { name: `named${Date.now()}`, permissions: ['users:read'] } })).body._id as string;
    const staleRole = await app.request('PATCH', `/v1/roles/${roleId}`, { token: admin, json: { permissions: [] }, headers: { 'if-match': '"99"' } });
    expect(staleRole.status).toBe(409);
    const refusals = (await events(`?outcome=failure&page_size=100`)).body.audit_events as { action: string; code: string; actor: { name: string | null }; target: { _id: string; snapshot: string | null } }[];
    const userRefusal = refusals.find((e) => e.action === 'user.updated' && e.target._id === user.id)!;
    expect({ code: userRefusal.code, actor: userRefusal.actor.name, target: userRefusal.target.snapshot }).toEqual({ code: 'USER_CHANGED_CONCURRENTLY', actor: 'admin', target: username });
    const roleRefusal = refusals.find((e) => e.action === 'role.updated' && e.target._id === roleId)!;
    expect({ code: roleRefusal.code, actor: roleRefusal.actor.name, named: roleRefusal.target.snapshot?.startsWith('named') }).toEqual({ code: 'ROLE_CHANGED_CONCURRENTLY', actor: 'admin', named: true });
  });

  it('is for holders of audit:read only', async () => {
    const { username, password } = await member();
    const token = await app.signIn(username, password);
    expect((await events('', token)).status).toBe(403);
    expect((await app.request('GET', `/v1/audit-events/export?from=2026-01-01T00:00:00Z`, { token })).status).toBe(403);
    expect((await app.request('GET', '/v1/audit-events')).status).toBe(401);
  });

  it.each([
    ['?page_size=101'],
    ['?page_size=0'],
    ['?page_size=1e2'],
    ['?cursor=not-a-cursor'],
    [`?cursor=${Buffer.from('12.').toString('base64url')}`],
    ['?from=yesterday'],
    ['?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z'],
    ['?action=USER'],
    ['?action=user%25'],
    ['?outcome=maybe'],
    ['?actor=%C3%A9'],
    ['?unknown=1'],
  ])('refuses %s with a 400 problem, never a 500', async (query) => {
    const answer = await events(query);
    expect(answer.status).toBe(400);
    expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('links every entry the service writes, and never one inserted in the database without the key', async () => {
    // Entries of each writer: a sign-in and its refusals with a lock (the lockout's counters), a change (a unit of
    // work), a service account and its token grant.
    const { username } = await member();
    for (let attempt = 0; attempt < 6; attempt++) await app.request('POST', '/v1/auth/signin', { json: { username, password: `wrong-password-${attempt}` } });
    await app.request('POST', '/v1/auth/signin', { json: { username: unique('nobody'), password: 'whatever-was-typed-here' } });
    const role = unique('auditsealrole');
    expect((await app.request('POST', '/v1/roles', { token: admin, json: { name: role, permissions: ['users:read'] } })).status).toBe(201);
    const account = await app.request('POST', '/v1/service-accounts', { token: admin, json: { name: unique('svc'), role } });
    const form = { grant_type: 'client_credentials', client_id: account.body.client_id as string, client_secret: account.body.client_secret as string };
    const granted = await app.request('POST', '/oauth/token', { body: new URLSearchParams(form).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(granted.status).toBe(200);
    const { auditMaintenance, auditVerifier, dataSource } = app.api.container.cradle;
    await auditMaintenance.pass();
    const linked = await auditVerifier.verify();
    expect({ ok: linked.ok, unsealed: linked.unsealed, break: linked.firstBreak }).toEqual({ ok: true, unsealed: 0, break: undefined });
    expect(linked.checked).toBeGreaterThan(10);

    // Someone who can write the table, not the key: a copy of an entry under a new id, as a sign-in of the admin's.
    const [row] = (await dataSource.query('SELECT * FROM audit_events WHERE seq IS NOT NULL ORDER BY seq DESC LIMIT 1')) as Record<string, unknown>[];
    const forgedId = randomUUID();
    const copy = { ...row, id: forgedId, action: 'user.deleted', action_group: 'user', seq: null, chain_hash: null, occurred_at: Date.now() };
    await dataSource.query(`INSERT INTO audit_events (${Object.keys(copy).join(', ')}) VALUES (${Object.keys(copy).map(() => '?').join(', ')})`, Object.values(copy));
    await auditMaintenance.pass();

    expect((await auditVerifier.verify()).firstBreak).toMatchObject({ id: forgedId, reason: 'forged' });
    // Said in the log at once, and the head the passes reached is in the log too (a copy a cut cannot move back).
    const said = logs.map((line) => JSON.parse(line) as { level: number; msg: string; entries?: string[]; auditHead?: { seq: number } });
    expect(said.filter((l) => l.level === 50 && l.msg.includes('without a valid seal')).flatMap((l) => l.entries)).toEqual([forgedId]);
    expect(said.some((l) => l.msg === 'audit chain head' && typeof l.auditHead?.seq === 'number')).toBe(true);
    const listed = await events('?page_size=100');
    expect(listed.status).toBe(200);
    expect(listed.text).not.toContain(forgedId);
    await dataSource.query('DELETE FROM audit_events WHERE id = ?', [forgedId]);
  });

  it('refuses an export without `from` (400)', async () => {
    expect((await app.request('GET', '/v1/audit-events/export', { token: admin })).status).toBe(400);
  });
});
