import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { createSigner } from 'fast-jwt';
import { SEEDED_ROLES } from '../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { startTestApp, type TestApp } from '../support/test-app';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const NO_SUCH = '01a1fc99-dead-7000-8000-0000000000f2';

describe('service accounts (#21)', () => {
  let app: TestApp;
  let admin: string;
  let counter = 0;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.signIn();
  });
  afterAll(async () => app.close());

  const unique = (prefix: string) => `${prefix}-${++counter}`;
  const create = (json: unknown, token = admin) => app.request('POST', '/v1/service-accounts', { token, json });
  const get = (id: string, token = admin) => app.request('GET', `/v1/service-accounts/${id}`, { token });
  const patch = (id: string, json: unknown, headers: Record<string, string> = {}, token = admin) =>
    app.request('PATCH', `/v1/service-accounts/${id}`, { token, json, headers });
  const remove = (id: string, headers: Record<string, string> = {}, token = admin) =>
    app.request('DELETE', `/v1/service-accounts/${id}`, { token, headers });
  const secrets = (id: string) => app.request('GET', `/v1/service-accounts/${id}/secrets`, { token: admin });
  const addSecret = (id: string, json: unknown = {}) => app.request('POST', `/v1/service-accounts/${id}/secrets`, { token: admin, json });
  const removeSecret = (id: string, secretId: string) => app.request('DELETE', `/v1/service-accounts/${id}/secrets/${secretId}`, { token: admin });
  const putKeys = (id: string, keys: unknown, headers: Record<string, string> = {}) =>
    app.request('PUT', `/v1/service-accounts/${id}/keys`, { token: admin, json: { keys }, headers });
  const credentials = () => app.api.container.cradle.serviceAccountCredentials;

  /** A joined user holding a custom role with `permissions`, and a token of it. */
  const personWith = async (permissions: string[]) => {
    const roleId = randomUUID();
    const roleName = unique('role').replace(/-/g, '');
    await app.addRole({ id: roleId, name: roleName, permissions });
    const username = unique('person');
    const password = `${username}-long-password`;
    await app.addJoinedUser({ username, password, email: `${username}@example.com`, role: { id: roleId, name: roleName, permissions } });
    return { token: await app.signIn(username, password), roleId, roleName };
  };

  it('creates an account (201, Location, ETag, no-store) whose client_secret, shown once, authenticates it', async () => {
    const name = unique('reports');
    const response = await create({ name, role: 'member', description: 'Reads the user list' });
    expect(response.status).toBe(201);
    const account = response.body;
    expect(account).toEqual({
      _id: expect.any(String),
      client_id: expect.any(String),
      name,
      description: 'Reads the user list',
      role: { _id: SEEDED_ROLES.member, name: 'member', permissions: [] },
      disabled: false,
      keys: [],
      created_date: expect.stringMatching(ISO_MS),
      created_by: expect.any(String),
      client_secret: expect.stringMatching(/^[A-Za-z0-9_-]{43,}$/),
    });
    expect(response.headers.get('location')).toBe(`/v1/service-accounts/${account._id}`);
    expect(response.headers.get('etag')).toBe('"1"');
    expect(response.headers.get('cache-control')).toBe('no-store');

    const read = await get(account._id);
    expect(read.status).toBe(200);
    const { client_secret: secret, ...shown } = account;
    expect(read.body).toEqual(shown);
    expect(read.text).not.toContain(secret);

    expect(await credentials().authenticateWithSecret(account.client_id, secret)).toMatchObject({ id: account._id, method: 'client_secret' });
    expect(await credentials().authenticateWithSecret(account.client_id, `${secret}x`)).toBeNull();
    const [listed] = (await secrets(account._id)).body.secrets;
    expect(listed).toEqual({ _id: expect.any(String), created_date: expect.stringMatching(ISO_MS), last_used_date: expect.stringMatching(ISO_MS) });
  });

  it('lists accounts with the pagination object, and never among the users', async () => {
    await create({ name: unique('listed'), role: 'member' });
    const page = await app.request('GET', '/v1/service-accounts?page=1&page_size=1', { token: admin });
    expect(page.status).toBe(200);
    expect(page.body.service_accounts).toHaveLength(1);
    expect(page.body.pagination).toMatchObject({ page: 1, page_size: 1 });
    expect(page.body.pagination.total_document).toBeGreaterThanOrEqual(2);
    expect(page.body.pagination.page_count).toBe(page.body.pagination.total_document);
    expect((await app.request('GET', '/v1/service-accounts?page_size=101', { token: admin })).status).toBe(400);
    const users = await app.request('GET', '/v1/users?page_size=100', { token: admin });
    expect(JSON.stringify(users.body)).not.toContain('listed-');
  });

  it('changes name, description, role and disabled with If-Match; a stale tag or a taken name is a 409', async () => {
    const account = (await create({ name: unique('editable'), role: 'member', description: 'before' })).body;
    const changed = await patch(account._id, { name: unique('edited'), description: null, role: 'admin', disabled: true }, { 'if-match': '"1"' });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).toBe('"2"');
    expect(changed.body).toMatchObject({ role: { _id: SEEDED_ROLES.admin, name: 'admin' }, disabled: true, updated_date: expect.stringMatching(ISO_MS) });
    expect(changed.body).not.toHaveProperty('description');
    expect(await credentials().authenticateWithSecret(account.client_id, account.client_secret)).toBeNull();
    expect((await patch(account._id, { disabled: false }, { 'if-match': '"1"' })).body.code).toBe('SERVICE_ACCOUNT_CHANGED_CONCURRENTLY');
    const other = (await create({ name: unique('other'), role: 'member' })).body;
    const taken = await patch(other._id, { name: changed.body.name.toUpperCase() });
    expect([taken.status, taken.body.code]).toEqual([409, 'SERVICE_ACCOUNT_NAME_TAKEN']);
    expect((await create({ name: other.name, role: 'member' })).body.code).toBe('SERVICE_ACCOUNT_NAME_TAKEN');
    expect((await patch(other._id, { role: 'nope' })).body.code).toBe('ROLE_NOT_FOUND');
    expect((await patch(other._id, { extra: 1 })).status).toBe(400);
  });

  it('rotates with overlap: a second secret works beside the first, then the first is deleted; the last stays', async () => {
    const account = (await create({ name: unique('rotating'), role: 'member' })).body;
    const [first] = (await secrets(account._id)).body.secrets;
    const last = await removeSecret(account._id, first._id);
    expect([last.status, last.body.code]).toEqual([409, 'LAST_CREDENTIAL']);

    const added = await addSecret(account._id, { expires_in: 3600 });
    expect(added.status).toBe(201);
    expect(added.headers.get('cache-control')).toBe('no-store');
    expect(added.body).toEqual({ _id: expect.any(String), created_date: expect.stringMatching(ISO_MS), expires_date: expect.stringMatching(ISO_MS), client_secret: expect.any(String) });
    expect(await credentials().authenticateWithSecret(account.client_id, account.client_secret)).not.toBeNull();
    expect(await credentials().authenticateWithSecret(account.client_id, added.body.client_secret)).not.toBeNull();
    const listed = await secrets(account._id);
    expect(listed.body.secrets.map((s: { _id: string }) => s._id)).toEqual([first._id, added.body._id]);
    expect(listed.text).not.toContain(added.body.client_secret);

    expect((await removeSecret(account._id, first._id)).status).toBe(204);
    expect(await credentials().authenticateWithSecret(account.client_id, account.client_secret)).toBeNull();
    expect(await credentials().authenticateWithSecret(account.client_id, added.body.client_secret)).not.toBeNull();
    expect((await removeSecret(account._id, first._id)).body.code).toBe('NO_SUCH_SERVICE_ACCOUNT_SECRET');
    expect((await addSecret(account._id, { expires_in: 1 })).status).toBe(400);
  });

  it('takes secrets added at once without If-Match in turn: up to the limit each is added, the rest TOO_MANY_SECRETS, never a conflict', async () => {
    const account = (await create({ name: unique('parallel'), role: 'member' })).body;
    const answers = await Promise.all(Array.from({ length: 8 }, () => addSecret(account._id)));
    const codes = answers.map((a) => (a.status === 201 ? 201 : a.body.code)).sort();
    // The account's first secret and four more make five: the limit.
    expect(codes).toEqual([201, 201, 201, 201, 'TOO_MANY_SECRETS', 'TOO_MANY_SECRETS', 'TOO_MANY_SECRETS', 'TOO_MANY_SECRETS']);
    expect((await secrets(account._id)).body.secrets).toHaveLength(5);
  });

  it('registers an inline public JWK set and authenticates with private_key_jwt, each jti once', async () => {
    const account = (await create({ name: unique('keyed'), role: 'member' })).body;
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = { ...(publicKey.export({ format: 'jwk' }) as Record<string, string>), kid: 'k1', alg: 'ES256', use: 'sig' };
    const keyed = await putKeys(account._id, [jwk], { 'if-match': '"1"' });
    expect(keyed.status).toBe(200);
    expect(keyed.body.keys).toEqual([jwk]);
    expect(keyed.headers.get('etag')).toBe('"2"');

    const audience = { tokenEndpointUrl: `${app.url}/oauth/token`, issuer: app.url };
    const now = Math.floor(Date.now() / 1000);
    const assertion = createSigner({ key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), algorithm: 'ES256', kid: 'k1' })({
      iss: account.client_id, sub: account.client_id, aud: audience.tokenEndpointUrl, exp: now + 120, jti: randomUUID(),
    });
    expect(await credentials().authenticateWithAssertion(assertion, audience)).toMatchObject({ id: account._id, method: 'private_key_jwt' });
    expect(await credentials().authenticateWithAssertion(assertion, audience)).toBeNull();

    const { d: _private, ...rest } = privateKey.export({ format: 'jwk' }) as Record<string, string>;
    for (const bad of [
      [{ ...rest, d: _private, kid: 'p' }],
      [{ ...jwk, kid: undefined }],
      [{ kty: 'oct', k: 'c2VjcmV0', kid: 'h' }],
      [jwk, jwk],
    ]) {
      const refused = await putKeys(account._id, bad);
      expect([refused.status, refused.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    }
    const tooMany = await putKeys(account._id, Array.from({ length: 6 }, (_, i) => ({ ...jwk, kid: `k${i}` })));
    expect(tooMany.status).toBe(400);
    // With a key registered, the last secret may go; then the keys may not.
    const [only] = (await secrets(account._id)).body.secrets;
    expect((await removeSecret(account._id, only._id)).status).toBe(204);
    expect((await putKeys(account._id, [])).body.code).toBe('LAST_CREDENTIAL');
  });

  it('needs service-accounts:read to read and :write to change, and applies the hand-out rule', async () => {
    const member = await personWith([]);
    expect((await app.request('GET', '/v1/service-accounts', { token: member.token })).status).toBe(403);
    const reader = await personWith(['service-accounts:read']);
    expect((await app.request('GET', '/v1/service-accounts', { token: reader.token })).status).toBe(200);
    expect((await create({ name: unique('nope'), role: 'member' }, reader.token)).status).toBe(403);

    const writer = await personWith(['service-accounts:write', 'service-accounts:read']);
    const beyond = await create({ name: unique('beyond'), role: 'admin' }, writer.token);
    expect([beyond.status, beyond.body.code]).toEqual([403, 'PERMISSION_DENIED']);
    const own = await create({ name: unique('own'), role: 'member' }, writer.token);
    expect(own.status).toBe(201);
    expect((await patch(own.body._id, { role: 'admin' }, {}, writer.token)).status).toBe(403);
    const strong = (await create({ name: unique('strong'), role: 'admin' })).body;
    expect((await patch(strong._id, { disabled: true }, {}, writer.token)).status).toBe(403);
    expect((await remove(strong._id, {}, writer.token)).status).toBe(403);
    expect((await get(strong._id, writer.token)).status).toBe(200);
  });

  it('answers 404 for an unknown account, and deletes one (its credentials stop at once)', async () => {
    expect((await get(NO_SUCH)).body.code).toBe('NO_SUCH_SERVICE_ACCOUNT');
    expect((await patch(NO_SUCH, { disabled: true })).status).toBe(404);
    expect((await secrets(NO_SUCH)).status).toBe(404);
    const account = (await create({ name: unique('doomed'), role: 'member' })).body;
    expect((await remove(account._id, { 'if-match': '"2"' })).body.code).toBe('SERVICE_ACCOUNT_CHANGED_CONCURRENTLY');
    expect((await remove(account._id, { 'if-match': '"1"' })).status).toBe(204);
    expect((await get(account._id)).status).toBe(404);
    expect(await credentials().authenticateWithSecret(account.client_id, account.client_secret)).toBeNull();
  });

  it('keeps a role held by a service account (ROLE_IN_USE), and never counts one as an admin', async () => {
    const roleId = randomUUID();
    await app.addRole({ id: roleId, name: unique('held').replace(/-/g, ''), permissions: ['users:read'] });
    const account = (await create({ name: unique('holder'), role: roleId })).body;
    const refused = await app.request('DELETE', `/v1/roles/${roleId}`, { token: admin });
    expect([refused.status, refused.body.code]).toEqual([409, 'ROLE_IN_USE']);
    await remove(account._id);
    expect((await app.request('DELETE', `/v1/roles/${roleId}`, { token: admin })).status).toBe(204);

    await create({ name: unique('robot-admin'), role: 'admin' });
    const me = (await app.request('GET', '/v1/me', { token: admin })).body;
    const demote = await app.request('PATCH', `/v1/users/${me._id}`, { token: admin, json: { role: 'member' } });
    expect([demote.status, demote.body.code]).toEqual([409, 'LAST_ACTIVE_ADMIN']);
  });
});
