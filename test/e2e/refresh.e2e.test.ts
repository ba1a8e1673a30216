import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { asValue } from 'awilix';
import type { Role } from '../../src/domain/roles/role';
import { SEEDED_ROLES } from '../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { RefreshTokenSchema } from '../../src/infrastructure/persistence/typeorm/records';
import { AdjustableClock } from '../support/adjustable-clock';
import { startTestApp, type TestApp } from '../support/test-app';

const member: Role = { id: SEEDED_ROLES.member, name: 'member', permissions: [] };
const DAY = 86_400_000;

describe('refresh tokens (#10)', () => {
  let app: TestApp;
  let admin: string;
  const clock = new AdjustableClock();
  let counter = 0;

  beforeAll(async () => {
    app = await startTestApp({}, { clock: asValue(clock) });
    admin = await app.signIn();
  });
  afterAll(async () => app.close());

  /** A joined member and what its sign-in answered. */
  const person = async () => {
    counter += 1;
    const username = `refresher-${counter}`;
    const password = `${username}-long-password`;
    const user = await app.addJoinedUser({ username, password, email: `${username}@example.com`, role: member });
    const signedIn = await app.request('POST', '/v1/auth/signin', { json: { username, password } });
    expect(signedIn.status).toBe(200);
    return { id: user.id, username, password, accessToken: signedIn.body.accessToken as string, refreshToken: signedIn.body.refreshToken as string };
  };
  const refresh = (refreshToken: unknown) => app.request('POST', '/v1/auth/refresh', { json: { refreshToken } });
  const me = (token: string) => app.request('GET', '/v1/me', { token });

  it('sign-in keeps the contract’s fields and adds an opaque refresh token', async () => {
    const response = await app.request('POST', '/v1/auth/signin', { json: { username: 'admin', password: 'admin-password-123' } });
    expect(Object.keys(response.body).sort()).toEqual(['accessToken', 'email', 'name', 'refreshToken', 'role', 'username']);
    expect(response.body.refreshToken).toMatch(/^[0-9a-f]{32}[A-Za-z0-9_-]{43}$/);
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('exchanges a refresh token for working new tokens, and stores only its hash', async () => {
    const p = await person();

    const response = await refresh(p.refreshToken);

    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['accessToken', 'refreshToken']);
    expect(response.body.refreshToken).not.toBe(p.refreshToken);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect((await me(response.body.accessToken)).body._id).toBe(p.id);
    const rows = (await app.api.container.cradle.dataSource.query('SELECT * FROM refresh_tokens WHERE user_id = ?', [p.id])) as object[];
    expect(rows).toHaveLength(2);
    expect(JSON.stringify(rows)).not.toContain(p.refreshToken);
    expect(JSON.stringify(rows)).not.toContain(response.body.refreshToken);
  });

  it('detects reuse: a used token presented again is refused and revokes its whole family, other sessions stay', async () => {
    const p = await person();
    const other = await app.request('POST', '/v1/auth/signin', { json: { username: p.username, password: p.password } });
    const second = await refresh(p.refreshToken);
    expect(second.status).toBe(200);

    const reused = await refresh(p.refreshToken);
    expect(reused.status).toBe(401);
    expect(reused.body.code).toBe('INVALID_REFRESH_TOKEN');

    expect((await refresh(second.body.refreshToken)).status).toBe(401);
    expect((await refresh(other.body.refreshToken)).status).toBe(200);
  });

  it('answers unknown, malformed-but-valid, used and revoked tokens with byte-identical 401 bodies', async () => {
    const p = await person();
    const second = await refresh(p.refreshToken);
    const used = await refresh(p.refreshToken);
    const revoked = await refresh(second.body.refreshToken);
    const unknown = await refresh('A'.repeat(43));
    const odd = await refresh('not even the right shape');

    const bodies = [used, revoked, unknown, odd].map((r) => [r.status, r.headers.get('content-type'), r.text]);
    expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
    expect(bodies[0]![0]).toBe(401);
  });

  it('refuses every refresh token after a sign-out', async () => {
    const p = await person();
    expect((await app.request('POST', '/v1/auth/signout', { token: p.accessToken })).status).toBe(204);

    expect((await refresh(p.refreshToken)).status).toBe(401);
  });

  it('refuses the refresh tokens of a deactivated user, and still after it is reactivated', async () => {
    const p = await person();
    expect((await app.request('POST', `/v1/users/${p.id}/deactivate`, { token: admin })).status).toBe(200);
    expect((await refresh(p.refreshToken)).status).toBe(401);

    expect((await app.request('POST', `/v1/users/${p.id}/reactivate`, { token: admin })).status).toBe(200);
    expect((await refresh(p.refreshToken)).status).toBe(401);
  });

  it('refuses the refresh tokens of a deleted user', async () => {
    const p = await person();
    expect((await app.request('DELETE', `/v1/users/${p.id}`, { token: admin })).status).toBe(204);

    expect((await refresh(p.refreshToken)).status).toBe(401);
  });

  it('refuses a token unused for REFRESH_TOKEN_IDLE_TTL (7d by default)', async () => {
    const p = await person();
    const kept = await person();
    clock.advance(7 * DAY - 60_000);
    const renewed = await refresh(kept.refreshToken);
    expect(renewed.status).toBe(200);
    clock.advance(60_000);

    expect((await refresh(p.refreshToken)).status).toBe(401);
    expect((await refresh(renewed.body.refreshToken)).status).toBe(200);
  });

  it('ends a family at REFRESH_TOKEN_TTL (30d by default) from sign-in, however often it was used', async () => {
    const p = await person();
    let token = p.refreshToken;
    for (let week = 0; week < 4; week++) {
      clock.advance(7 * DAY - 60_000);
      const response = await refresh(token);
      expect(response.status).toBe(200);
      token = response.body.refreshToken;
    }
    clock.advance(2 * DAY + 4 * 60_000);

    expect((await refresh(token)).status).toBe(401);
  });

  it('keeps a session refreshed every 15 minutes for a day at two rows, and still revokes it when a token used long ago comes back', async () => {
    const p = await person();
    const first = p.refreshToken;
    let token = first;
    for (let renewal = 0; renewal < 96; renewal++) {
      clock.advance(15 * 60_000);
      const next = await refresh(token);
      expect(next.status).toBe(200);
      token = next.body.refreshToken;
    }
    const rows = (await app.api.container.cradle.dataSource.query('SELECT used_at FROM refresh_tokens WHERE user_id = ?', [p.id])) as { used_at: unknown }[];
    // The token just used (kept for the reuse grace and a minute) and the live one: 97 rows before.
    expect(rows).toHaveLength(2);
    const other = await app.request('POST', '/v1/auth/signin', { json: { username: p.username, password: p.password } });

    // The sign-in's token, used a day ago, its row gone: a reuse all the same.
    const reused = await refresh(first);
    expect(reused.status).toBe(401);
    expect(reused.body.code).toBe('INVALID_REFRESH_TOKEN');
    expect((await refresh(token)).status).toBe(401);
    expect((await refresh(other.body.refreshToken)).status).toBe(200);
  });

  it('exchanges an earlier version\'s token (naming no family) and still catches its reuse by its row, however long ago it was used', async () => {
    const p = await person();
    const earlier = randomBytes(32).toString('base64url');
    const now = clock.now();
    await app.api.container.cradle.dataSource.getRepository(RefreshTokenSchema).insert({
      id: randomUUID(),
      familyId: randomUUID(),
      userId: p.id,
      tokenHash: createHash('sha256').update(earlier).digest('hex'),
      tokenVersion: 0,
      createdAt: now,
      expiresAt: new Date(now.getTime() + 30 * DAY),
      idleExpiresAt: new Date(now.getTime() + 7 * DAY),
      usedAt: null,
      revokedAt: null,
      familyInToken: 0,
    });
    const second = await refresh(earlier);
    expect(second.status).toBe(200);
    let token = second.body.refreshToken as string;
    for (let renewal = 0; renewal < 3; renewal++) {
      clock.advance(15 * 60_000);
      token = (await refresh(token)).body.refreshToken;
    }

    expect((await refresh(earlier)).status).toBe(401);
    expect((await refresh(token)).status).toBe(401);
  });

  it('refuses a body without refreshToken, with another field, or too long with 400', async () => {
    expect((await app.request('POST', '/v1/auth/refresh', { json: {} })).status).toBe(400);
    expect((await app.request('POST', '/v1/auth/refresh', { json: { refreshToken: 'x', admin: true } })).status).toBe(400);
    expect((await refresh('x'.repeat(129))).status).toBe(400);
    expect((await refresh(42)).status).toBe(400);
  });
});

describe('two replicas exchanging one refresh token at once', () => {
  let one: TestApp;
  let two: TestApp;

  beforeAll(async () => {
    one = await startTestApp({ REFRESH_TOKEN_REUSE_GRACE: '30s' });
    // The same database: the second replica must not drop it when it closes.
    two = await startTestApp({ REFRESH_TOKEN_REUSE_GRACE: '30s' }, {}, { ...one.database, drop: async () => undefined });
  });
  afterAll(async () => {
    await two?.close();
    await one?.close();
  });

  it('lets exactly one win, every time; within the grace the winner’s session continues', async () => {
    for (let round = 0; round < 5; round++) {
      const signedIn = await one.request('POST', '/v1/auth/signin', { json: { username: 'admin', password: 'admin-password-123' } });
      const token = signedIn.body.refreshToken as string;

      const answers = await Promise.all([
        one.request('POST', '/v1/auth/refresh', { json: { refreshToken: token } }),
        two.request('POST', '/v1/auth/refresh', { json: { refreshToken: token } }),
      ]);

      expect(answers.map((a) => a.status).sort()).toEqual([200, 401]);
      const winner = answers.find((a) => a.status === 200)!;
      expect((await two.request('POST', '/v1/auth/refresh', { json: { refreshToken: winner.body.refreshToken } })).status).toBe(200);
    }
  });
});
