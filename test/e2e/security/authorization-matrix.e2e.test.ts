import { randomUUID } from 'node:crypto';
import { asValue } from 'awilix';
import type { Role } from '../../../src/domain/roles/role';
import { SEEDED_PERMISSIONS, SEEDED_ROLES } from '../../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { CapturingMailer } from '../../support/capturing-mailer';
import { ADMIN, startTestApp, type TestApp } from '../../support/test-app';

/**
 * Every route × every kind of caller → exactly one expected status (API1/API5 Broken Object/Function
 * Level Authorization); mass assignment (API3) is mass-assignment.e2e.test.ts.
 */

type Caller = 'anonymous' | 'admin' | 'member' | 'inviter' | 'reader';
const CALLERS: readonly Caller[] = ['anonymous', 'admin', 'member', 'inviter', 'reader'];

const permissionId = (name: string) => SEEDED_PERMISSIONS.find((p) => p.name === name)!.id;
const CUSTOM_ROLES = {
  inviter: { id: '01a1fc99-0000-7000-8000-0000000000a1', name: 'only-invite', permissions: ['users:invite'] },
  reader: { id: '01a1fc99-0000-7000-8000-0000000000a2', name: 'only-read', permissions: ['users:read', 'permissions:read'] },
} as const;

interface Cell {
  method: string;
  path: string;
  /** Builds the request for one caller: the path may need a fresh pending user. */
  prepare?: () => Promise<{ path?: string; json?: unknown }>;
  json?: unknown;
  /** A form body instead (the OAuth endpoints). */
  form?: string;
  /** An OAuth endpoint: its refusals are RFC 6749 §5.2 JSON with this `error`, never problem+json. */
  oauthError?: string;
  expected: Record<Caller, number>;
}

const all = (status: number): Record<Caller, number> => ({ anonymous: status, admin: status, member: status, inviter: status, reader: status });
const adminOnly = (status: number): Record<Caller, number> => ({ anonymous: 401, admin: status, member: 403, inviter: 403, reader: 403 });
const ED25519_KEY = { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo', kid: 'matrix' };

describe('authorization matrix (every route × every role)', () => {
  const mailer = new CapturingMailer();
  let app: TestApp;
  const tokens = {} as Record<Exclude<Caller, 'anonymous'>, string>;
  let counter = 0;

  const pendingUser = async (): Promise<string> => {
    counter += 1;
    const email = `pending-${counter}@example.com`;
    const admin = await app.signIn();
    const invited = await app.request('POST', '/v1/users/invite', { token: admin, json: { email } });
    if (invited.status !== 201) throw new Error(`fixture invite failed: ${invited.status}`);
    const rows: { id: string }[] = await app.api.container.cradle.dataSource.query('SELECT id FROM users WHERE email_key = ?', [email]);
    return rows[0].id;
  };

  /** A fresh custom role without permissions, made by the admin (role administration, #11). */
  const customRole = async (): Promise<string> => {
    const created = await app.request('POST', '/v1/roles', { token: await app.signIn(), json: { name: `matrix-role-${++counter}`, permissions: [] } });
    if (created.status !== 201) throw new Error(`fixture role failed: ${created.status}`);
    return created.body._id;
  };

  /** A fresh service account of the member role, made by the admin (#21). */
  const serviceAccount = async (): Promise<string> => {
    const created = await app.request('POST', '/v1/service-accounts', { token: await app.signIn(), json: { name: `matrix-sa-${++counter}`, role: 'member' } });
    if (created.status !== 201) throw new Error(`fixture service account failed: ${created.status}`);
    return created.body._id;
  };

  /** The path of the second secret of a fresh service account (the first stays: never the last credential). */
  const secondSecret = async (): Promise<string> => {
    const id = await serviceAccount();
    const added = await app.request('POST', `/v1/service-accounts/${id}/secrets`, { token: await app.signIn(), json: {} });
    if (added.status !== 201) throw new Error(`fixture secret failed: ${added.status}`);
    return `/v1/service-accounts/${id}/secrets/${added.body._id}`;
  };

  beforeAll(async () => {
    app = await startTestApp({ LOG_LEVEL: process.env.MATRIX_LOG ?? 'silent' }, { mailer: asValue(mailer) });
    const dataSource = app.api.container.cradle.dataSource;
    for (const role of Object.values(CUSTOM_ROLES)) {
      await dataSource.query('INSERT INTO roles (id, name, created_at) VALUES (?, ?, ?)', [role.id, role.name, new Date()]);
      for (const permission of role.permissions) {
        await dataSource.query('INSERT INTO role_permissions (role_id, permission_id) VALUES (?, ?)', [role.id, permissionId(permission)]);
      }
    }
    const roles: Record<'member' | 'inviter' | 'reader', Role> = {
      member: { id: SEEDED_ROLES.member, name: 'member', permissions: [] },
      inviter: { ...CUSTOM_ROLES.inviter, permissions: [...CUSTOM_ROLES.inviter.permissions] },
      reader: { ...CUSTOM_ROLES.reader, permissions: [...CUSTOM_ROLES.reader.permissions] },
    };
    for (const [caller, role] of Object.entries(roles)) {
      await app.addJoinedUser({ username: `matrix-${caller}`, password: `${caller}-password-long`, email: `${caller}@example.com`, role });
    }
    tokens.admin = await app.signIn();
    for (const caller of ['member', 'inviter', 'reader'] as const) tokens[caller] = await app.signIn(`matrix-${caller}`, `${caller}-password-long`);
  });
  afterAll(async () => app.close());

  // Sign-out is last: it ends every token of the caller.
  const MATRIX: Cell[] = [
    { method: 'POST', path: '/v1/auth/signin', json: { username: ADMIN.username, password: ADMIN.password }, expected: all(200) },
    { method: 'GET', path: '/v1/users', expected: { anonymous: 401, admin: 200, member: 403, inviter: 403, reader: 200 } },
    {
      method: 'POST',
      path: '/v1/users/invite',
      prepare: async () => ({ json: { email: `matrix-invitee-${++counter}@example.com` } }),
      expected: { anonymous: 401, admin: 201, member: 403, inviter: 201, reader: 403 },
    },
    { method: 'GET', path: '/v1/permissions', expected: { anonymous: 401, admin: 200, member: 403, inviter: 403, reader: 200 } },
    {
      method: 'POST',
      path: '/v1/invitations/accept',
      json: { token: 'x'.repeat(43), name: 'Nobody', username: 'nobody', password: 'a long enough passphrase' },
      expected: all(404),
    },
    {
      method: 'POST',
      path: '/v1/users/:id/invitation/resend',
      prepare: async () => ({ path: `/v1/users/${await pendingUser()}/invitation/resend` }),
      expected: { anonymous: 401, admin: 202, member: 403, inviter: 202, reader: 403 },
    },
    {
      method: 'DELETE',
      path: '/v1/users/:id/invitation',
      prepare: async () => ({ path: `/v1/users/${await pendingUser()}/invitation` }),
      expected: { anonymous: 401, admin: 204, member: 403, inviter: 204, reader: 403 },
    },
    // One user's administration, each on a fresh pending member: only the admin holds users:update, :deactivate and :delete.
    {
      method: 'GET',
      path: '/v1/users/:id',
      prepare: async () => ({ path: `/v1/users/${await pendingUser()}` }),
      expected: { anonymous: 401, admin: 200, member: 403, inviter: 403, reader: 200 },
    },
    {
      method: 'PATCH',
      path: '/v1/users/:id',
      prepare: async () => ({ path: `/v1/users/${await pendingUser()}` }),
      json: { name: 'Renamed' },
      expected: { anonymous: 401, admin: 200, member: 403, inviter: 403, reader: 403 },
    },
    {
      method: 'POST',
      path: '/v1/users/:id/deactivate',
      prepare: async () => ({ path: `/v1/users/${await pendingUser()}/deactivate` }),
      expected: { anonymous: 401, admin: 200, member: 403, inviter: 403, reader: 403 },
    },
    {
      method: 'POST',
      path: '/v1/users/:id/reactivate',
      prepare: async () => ({ path: `/v1/users/${await pendingUser()}/reactivate` }),
      expected: { anonymous: 401, admin: 200, member: 403, inviter: 403, reader: 403 },
    },
    {
      method: 'DELETE',
      path: '/v1/users/:id',
      prepare: async () => ({ path: `/v1/users/${await pendingUser()}` }),
      expected: { anonymous: 401, admin: 204, member: 403, inviter: 403, reader: 403 },
    },
    // Role administration (#11): only the admin holds roles:read and roles:write.
    { method: 'GET', path: '/v1/roles', expected: { anonymous: 401, admin: 200, member: 403, inviter: 403, reader: 403 } },
    {
      method: 'GET',
      path: '/v1/roles/:id',
      prepare: async () => ({ path: `/v1/roles/${SEEDED_ROLES.member}` }),
      expected: { anonymous: 401, admin: 200, member: 403, inviter: 403, reader: 403 },
    },
    {
      method: 'POST',
      path: '/v1/roles',
      prepare: async () => ({ json: { name: `matrix-new-role-${++counter}`, permissions: ['users:read'] } }),
      expected: { anonymous: 401, admin: 201, member: 403, inviter: 403, reader: 403 },
    },
    {
      method: 'PATCH',
      path: '/v1/roles/:id',
      prepare: async () => ({ path: `/v1/roles/${await customRole()}` }),
      json: { permissions: ['users:read'] },
      expected: { anonymous: 401, admin: 200, member: 403, inviter: 403, reader: 403 },
    },
    {
      method: 'DELETE',
      path: '/v1/roles/:id',
      prepare: async () => ({ path: `/v1/roles/${await customRole()}` }),
      expected: { anonymous: 401, admin: 204, member: 403, inviter: 403, reader: 403 },
    },
    // Service accounts (#21): only the admin holds service-accounts:read and :write; each change on a fresh account.
    { method: 'GET', path: '/v1/service-accounts', expected: adminOnly(200) },
    // The audit trail (#23): audit:read, held by admin only.
    { method: 'GET', path: '/v1/audit-events', expected: adminOnly(200) },
    { method: 'GET', path: '/v1/audit-events/export?from=2000-01-01T00:00:00Z', expected: adminOnly(200) },
    {
      method: 'POST',
      path: '/v1/service-accounts',
      prepare: async () => ({ json: { name: `matrix-sa-${++counter}`, role: 'member' } }),
      expected: adminOnly(201),
    },
    { method: 'GET', path: '/v1/service-accounts/:id', prepare: async () => ({ path: `/v1/service-accounts/${await serviceAccount()}` }), expected: adminOnly(200) },
    {
      method: 'PATCH',
      path: '/v1/service-accounts/:id',
      prepare: async () => ({ path: `/v1/service-accounts/${await serviceAccount()}` }),
      json: { disabled: true },
      expected: adminOnly(200),
    },
    { method: 'DELETE', path: '/v1/service-accounts/:id', prepare: async () => ({ path: `/v1/service-accounts/${await serviceAccount()}` }), expected: adminOnly(204) },
    {
      method: 'GET',
      path: '/v1/service-accounts/:id/secrets',
      prepare: async () => ({ path: `/v1/service-accounts/${await serviceAccount()}/secrets` }),
      expected: adminOnly(200),
    },
    {
      method: 'POST',
      path: '/v1/service-accounts/:id/secrets',
      prepare: async () => ({ path: `/v1/service-accounts/${await serviceAccount()}/secrets`, json: {} }),
      expected: adminOnly(201),
    },
    {
      method: 'DELETE',
      path: '/v1/service-accounts/:id/secrets/:secretId',
      prepare: async () => ({ path: await secondSecret() }),
      expected: adminOnly(204),
    },
    {
      method: 'PUT',
      path: '/v1/service-accounts/:id/keys',
      prepare: async () => ({ path: `/v1/service-accounts/${await serviceAccount()}/keys`, json: { keys: [ED25519_KEY] } }),
      expected: adminOnly(200),
    },
    { method: 'POST', path: '/v1/resources', json: { name: 'anything' }, expected: { anonymous: 401, admin: 404, member: 404, inviter: 404, reader: 404 } },
    // Own account and refresh (#10): a valid token is all /v1/me needs; refresh takes no bearer (an unknown token: 401 for all).
    { method: 'GET', path: '/v1/me', expected: { anonymous: 401, admin: 200, member: 200, inviter: 200, reader: 200 } },
    {
      method: 'POST',
      path: '/v1/me/password',
      json: { current_password: 'not the current password', new_password: 'a long enough passphrase' },
      expected: { anonymous: 401, admin: 400, member: 400, inviter: 400, reader: 400 },
    },
    { method: 'POST', path: '/v1/auth/refresh', json: { refreshToken: 'x'.repeat(43) }, expected: all(401) },
    // The console session (#25) is public like refresh; without its X-Console-Session header (the CSRF defence) every caller gets 400.
    { method: 'POST', path: '/v1/auth/console-session', json: { refreshToken: 'x'.repeat(43) }, expected: all(400) },
    // Second factors (#24): one's own needs only a valid token; the sign-in's second step none (an unknown ticket: 401 for all).
    { method: 'GET', path: '/v1/me/mfa', expected: { anonymous: 401, admin: 200, member: 200, inviter: 200, reader: 200 } },
    // Adding a factor, or new recovery codes, takes the password as removing one does: a wrong one is a 400 for all, never a 403.
    { method: 'POST', path: '/v1/me/mfa/totp', json: { password: 'not the current password' }, expected: { anonymous: 401, admin: 400, member: 400, inviter: 400, reader: 400 } },
    // Nothing pending (the start above was refused): 409 MFA_ENROLLMENT_NOT_STARTED, never a permission.
    { method: 'POST', path: '/v1/me/mfa/totp/confirm', json: { code: '000000' }, expected: { anonymous: 401, admin: 409, member: 409, inviter: 409, reader: 409 } },
    { method: 'DELETE', path: '/v1/me/mfa/totp', json: { password: 'not the current password' }, expected: { anonymous: 401, admin: 400, member: 400, inviter: 400, reader: 400 } },
    { method: 'POST', path: '/v1/me/mfa/recovery-codes', json: { password: 'not the current password' }, expected: { anonymous: 401, admin: 409, member: 409, inviter: 409, reader: 409 } },
    { method: 'POST', path: '/v1/auth/signin/mfa', json: { mfa_token: 'x'.repeat(43), code: '123456' }, expected: all(401) },
    // Passkeys (#24): one's own, with a valid token; an id that is not one's own is a 404 for all, never a 403.
    { method: 'POST', path: '/v1/me/mfa/webauthn/registration-options', json: { password: 'not the current password' }, expected: { anonymous: 401, admin: 400, member: 400, inviter: 400, reader: 400 } },
    { method: 'PATCH', path: '/v1/me/mfa/webauthn/no-such-passkey', json: { name: 'Key' }, expected: { anonymous: 401, admin: 404, member: 404, inviter: 404, reader: 404 } },
    { method: 'DELETE', path: '/v1/me/mfa/webauthn/no-such-passkey', json: { password: 'not the current password' }, expected: { anonymous: 401, admin: 404, member: 404, inviter: 404, reader: 404 } },
    { method: 'POST', path: '/v1/auth/signin/mfa/webauthn-options', json: { mfa_token: 'x'.repeat(43) }, expected: all(401) },
    {
      method: 'DELETE',
      path: '/v1/users/:id/mfa',
      prepare: async () => ({ path: `/v1/users/${await pendingUser()}/mfa` }),
      expected: { anonymous: 401, admin: 409, member: 403, inviter: 403, reader: 403 },
    },
    // The OAuth token endpoint (#21): no bearer token; an unknown refresh token is invalid_grant (400) for all, in OAuth's JSON.
    { method: 'POST', path: '/oauth/token', form: `grant_type=refresh_token&refresh_token=${'x'.repeat(43)}`, oauthError: 'invalid_grant', expected: all(400) },
    // Revocation and introspection (#21): a bearer token is no client's credentials (invalid_client, 401 with Basic);
    // without any, an unknown token is revoked (200: nothing to do), and introspection needs a client.
    {
      method: 'POST',
      path: '/oauth/revoke',
      form: `token=${'x'.repeat(43)}`,
      oauthError: 'invalid_client',
      expected: { anonymous: 200, admin: 401, member: 401, inviter: 401, reader: 401 },
    },
    { method: 'POST', path: '/oauth/introspect', form: `token=${'x'.repeat(43)}`, oauthError: 'invalid_client', expected: all(401) },
    // Password reset (#10): public, a bearer token changes nothing (a fresh address each call, under the per-address limit).
    {
      method: 'POST',
      path: '/v1/auth/password-reset',
      prepare: async () => ({ json: { email: `matrix-${randomUUID()}@example.com` } }),
      expected: all(202),
    },
    { method: 'POST', path: '/v1/auth/password-reset/confirm', json: { token: 'no-such-token', password: 'a long enough passphrase' }, expected: all(404) },
    { method: 'POST', path: '/v1/auth/signout', expected: { anonymous: 401, admin: 204, member: 204, inviter: 204, reader: 204 } },
  ];

  it('answers exactly the expected status for each of the 50 routes × 5 callers (250 cells)', async () => {
    const actual: string[] = [];
    const expected: string[] = [];
    for (const cell of MATRIX) {
      for (const caller of CALLERS) {
        const prepared = cell.prepare ? await cell.prepare() : {};
        const json = prepared.json ?? cell.json;
        const response = await app.request(cell.method, prepared.path ?? cell.path, {
          token: caller === 'anonymous' ? undefined : tokens[caller],
          ...(json !== undefined ? { json } : {}),
          ...(cell.form !== undefined ? { body: cell.form, headers: { 'content-type': 'application/x-www-form-urlencoded' } } : {}),
        });
        actual.push(`${cell.method} ${cell.path} as ${caller} → ${response.status}`);
        expected.push(`${cell.method} ${cell.path} as ${caller} → ${cell.expected[caller]}`);
        if (response.status >= 400 && cell.oauthError) {
          expect(response.headers.get('content-type')).toMatch(/^application\/json/);
          expect(response.body).toEqual({ error: cell.oauthError, error_description: expect.any(String) });
          if (response.status === 401) expect(response.headers.get('www-authenticate')).toMatch(/^Basic /);
        } else if (response.status >= 400) {
          expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
          expect(response.body).toMatchObject({ status: response.status, code: expect.any(String) });
        }
        const ticketRoutes = ['/v1/auth/signin/mfa', '/v1/auth/signin/mfa/webauthn-options'];
        if (response.status === 401 && cell.path !== '/v1/auth/signin' && !ticketRoutes.includes(cell.path) && cell.path !== '/v1/auth/refresh' && !cell.oauthError) {
          expect(response.headers.get('www-authenticate')).toMatch(/^Bearer /);
        }
      }
    }
    expect(actual).toEqual(expected);
    expect(actual).toHaveLength(250);
  });

  it('a denied invite or revoke changes nothing: no user row, and the pending user is still there', async () => {
    const member = await app.signIn('matrix-member', 'member-password-long');
    const reader = await app.signIn('matrix-reader', 'reader-password-long');
    expect((await app.request('POST', '/v1/users/invite', { token: member, json: { email: 'denied@example.com' } })).status).toBe(403);
    const id = await pendingUser();
    expect((await app.request('DELETE', `/v1/users/${id}/invitation`, { token: reader })).status).toBe(403);
    const dataSource = app.api.container.cradle.dataSource;
    expect(await dataSource.query("SELECT id FROM users WHERE email_key = 'denied@example.com'")).toHaveLength(0);
    expect(await dataSource.query('SELECT id FROM users WHERE id = ?', [id])).toHaveLength(1);
  });

  it('an inviter holding only users:invite cannot hand out admin (403, nothing created)', async () => {
    const inviter = await app.signIn('matrix-inviter', 'inviter-password-long');
    const refused = await app.request('POST', '/v1/users/invite', { token: inviter, json: { email: 'escalate@example.com', role: 'admin' } });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('PERMISSION_DENIED');
    expect(await app.api.container.cradle.dataSource.query("SELECT id FROM users WHERE email_key = 'escalate@example.com'")).toHaveLength(0);
  });

  it('a revoke racing the mailer issuing the token is never a 503: 15 invite-then-revoke pairs → 15 × 204', async () => {
    // Regression: the revoke's DELETE and the mailer's invitation INSERT deadlocked on MariaDB (ER_LOCK_DEADLOCK → 503).
    const admin = await app.signIn();
    const statuses: number[] = [];
    for (let i = 0; i < 15; i++) statuses.push((await app.request('DELETE', `/v1/users/${await pendingUser()}/invitation`, { token: admin })).status);
    expect(statuses).toEqual(Array(15).fill(204));
  });
});
