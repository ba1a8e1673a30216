import type { Role } from '../../src/domain/roles/role';
import { SEEDED_ROLES } from '../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { startTestApp, type TestApp } from '../support/test-app';

const member: Role = { id: SEEDED_ROLES.member, name: 'member', permissions: [] };

describe('own account (#10)', () => {
  let app: TestApp;
  let admin: string;
  let counter = 0;

  beforeAll(async () => {
    app = await startTestApp({ LOCKOUT_THRESHOLD: '3' });
    admin = await app.signIn();
  });
  afterAll(async () => app.close());

  const person = async () => {
    counter += 1;
    const username = `owner-${counter}`;
    const password = `${username}-long-password`;
    const user = await app.addJoinedUser({ username, password, email: `${username}@example.com`, role: member });
    const signedIn = await app.request('POST', '/v1/auth/signin', { json: { username, password } });
    return { id: user.id, username, password, accessToken: signedIn.body.accessToken as string, refreshToken: signedIn.body.refreshToken as string };
  };
  const changePassword = (token: string, json: unknown) => app.request('POST', '/v1/me/password', { token, json });
  const signIn = (username: string, password: string) => app.request('POST', '/v1/auth/signin', { json: { username, password } });

  describe('GET /v1/me', () => {
    it('shows a member, who holds no permission, as GET /v1/users/{id} shows it to an admin', async () => {
      const p = await person();

      const own = await app.request('GET', '/v1/me', { token: p.accessToken });
      const asAdmin = await app.request('GET', `/v1/users/${p.id}`, { token: admin });

      expect(own.status).toBe(200);
      expect(own.body).toEqual(asAdmin.body);
      expect(own.headers.get('etag')).toBe(asAdmin.headers.get('etag'));
      expect(own.body).toMatchObject({ _id: p.id, username: p.username, status: 'active', role: { name: 'member', permissions: [] } });
      expect(own.text).not.toMatch(/argon2|password/i);
    });

    it('needs a valid token', async () => {
      expect((await app.request('GET', '/v1/me')).status).toBe(401);
      expect((await app.request('GET', '/v1/me', { token: 'not.a.jwt' })).status).toBe(401);
    });
  });

  describe('POST /v1/me/password', () => {
    it('changes the password, ends every other token, and hands the caller a new session that works', async () => {
      const p = await person();
      const otherDevice = await signIn(p.username, p.password);
      const newPassword = 'an entirely new passphrase';

      const changed = await changePassword(p.accessToken, { current_password: p.password, new_password: newPassword });

      expect(changed.status).toBe(200);
      expect(Object.keys(changed.body).sort()).toEqual(['accessToken', 'refreshToken']);
      // Every token from before is refused: the caller's own, another device's, and their refresh tokens.
      expect((await app.request('GET', '/v1/me', { token: p.accessToken })).status).toBe(401);
      expect((await app.request('GET', '/v1/me', { token: otherDevice.body.accessToken })).status).toBe(401);
      expect((await app.request('POST', '/v1/auth/refresh', { json: { refreshToken: p.refreshToken } })).status).toBe(401);
      expect((await app.request('POST', '/v1/auth/refresh', { json: { refreshToken: otherDevice.body.refreshToken } })).status).toBe(401);
      // The new session works, and renews.
      expect((await app.request('GET', '/v1/me', { token: changed.body.accessToken })).status).toBe(200);
      expect((await app.request('POST', '/v1/auth/refresh', { json: { refreshToken: changed.body.refreshToken } })).status).toBe(200);
      // Only the new password signs in.
      expect((await signIn(p.username, p.password)).status).toBe(401);
      expect((await signIn(p.username, newPassword)).status).toBe(200);
    });

    it('of changes sent at once with the same current password, one wins; the others are told it no longer holds', async () => {
      const p = await person();
      const answers = await Promise.all([1, 2, 3].map((i) => changePassword(p.accessToken, { current_password: p.password, new_password: `concurrent new passphrase ${i}` })));
      expect(answers.map((a) => (a.status === 200 ? 200 : a.body.code)).sort()).toEqual([200, 'WRONG_CURRENT_PASSWORD', 'WRONG_CURRENT_PASSWORD']);
      const winner = answers.findIndex((a) => a.status === 200);
      // The winner's password signs in and its session works; no other answer handed out a session.
      expect((await signIn(p.username, `concurrent new passphrase ${winner + 1}`)).status).toBe(200);
      expect((await app.request('GET', '/v1/me', { token: answers[winner]!.body.accessToken })).status).toBe(200);
      for (const [i, a] of answers.entries()) if (i !== winner) expect(a.body.accessToken).toBeUndefined();
    });

    it('refuses a wrong current password with 400 WRONG_CURRENT_PASSWORD and changes nothing', async () => {
      const p = await person();

      const refused = await changePassword(p.accessToken, { current_password: 'wrong password!', new_password: 'an entirely new passphrase' });

      expect(refused.status).toBe(400);
      expect(refused.body.code).toBe('WRONG_CURRENT_PASSWORD');
      expect((await app.request('GET', '/v1/me', { token: p.accessToken })).status).toBe(200);
      expect((await signIn(p.username, p.password)).status).toBe(200);
    });

    it('counts wrong current passwords against the sign-in lockout', async () => {
      const p = await person();
      for (let i = 0; i < 3; i++) {
        expect((await changePassword(p.accessToken, { current_password: `wrong-${i}-password`, new_password: 'an entirely new passphrase' })).status).toBe(400);
      }

      // Locked: even the right password, at sign-in and here, reads as wrong.
      expect((await signIn(p.username, p.password)).status).toBe(401);
      const locked = await changePassword(p.accessToken, { current_password: p.password, new_password: 'an entirely new passphrase' });
      expect(locked.status).toBe(400);
      expect(locked.body.code).toBe('WRONG_CURRENT_PASSWORD');
    });

    it.each([
      ['too short', 'short', 'new_password'],
      ['common', 'password1234', 'new_password'],
    ])('refuses a %s new password with 400 naming new_password', async (_what, newPassword, field) => {
      const p = await person();

      const refused = await changePassword(p.accessToken, { current_password: p.password, new_password: newPassword });

      expect(refused.status).toBe(400);
      expect(refused.body.code).toBe('VALIDATION_FAILED');
      expect(refused.body.errors.map((e: { field: string }) => e.field)).toEqual([field]);
      expect((await signIn(p.username, p.password)).status).toBe(200);
    });

    it('refuses a body with a missing or unknown field (400), and anonymous callers (401)', async () => {
      const p = await person();
      expect((await changePassword(p.accessToken, { new_password: 'an entirely new passphrase' })).status).toBe(400);
      expect((await changePassword(p.accessToken, { current_password: p.password, new_password: 'an entirely new passphrase', username: 'x' })).status).toBe(400);
      expect((await app.request('POST', '/v1/me/password', { json: { current_password: p.password, new_password: 'an entirely new passphrase' } })).status).toBe(401);
    });
  });
});
