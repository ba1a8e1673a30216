import { asValue } from 'awilix';
import { SEEDED_ROLES } from '../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { AdjustableClock } from '../support/adjustable-clock';
import { CapturingMailer } from '../support/capturing-mailer';
import { startTestApp, type TestApp } from '../support/test-app';

const SEVEN_DAYS_MS = 7 * 24 * 3600 * 1000;

/**
 * Invite → (outbox → in-process bus → mailer) → the page at the link → accept → sign in, on the
 * embedded event path with a real MariaDB; the mail transport is replaced to read the link.
 */
describe('invitations end to end (in-process events)', () => {
  let app: TestApp;
  let token: string;
  const mailer = new CapturingMailer();
  const clock = new AdjustableClock();

  beforeAll(async () => {
    app = await startTestApp({}, { mailer: asValue(mailer), clock: asValue(clock) });
    token = await app.signIn();
  });
  afterAll(async () => app.close());

  async function inviteAndGetLink(email: string, name?: string): Promise<string> {
    const before = mailer.sent.length;
    const response = await app.request('POST', '/v1/users/invite', { token, json: { email, ...(name ? { name } : {}) } });
    expect(response.status).toBe(201);
    return waitForMail(email, before);
  }

  const waitForMail = (email: string, before: number) => mailer.tokenSentTo(email, before);

  async function userByEmail(email: string) {
    const list = await app.request('GET', '/v1/users?page_size=100', { token });
    return list.body.users.find((u: { email: string }) => u.email === email);
  }

  const accept = (body: Record<string, unknown>) => app.request('POST', '/v1/invitations/accept', { json: body });
  const page = (secret: string) => app.request('GET', `/invitations/accept?token=${encodeURIComponent(secret)}`);

  it('mails a link whose page shows a form, then joins the user, who signs in', async () => {
    const secret = await inviteAndGetLink('joiner@example.com', 'Jo Iner');
    const mail = mailer.lastTo('joiner@example.com');
    expect(mail.link).toBe(`${app.api.container.cradle.config.publicUrl}/invitations/accept?token=${secret}`);
    expect(secret.length).toBeGreaterThanOrEqual(22); // ≥ 128 bits in base64url

    // Opening the link (twice, as a mail scanner would) consumes nothing.
    for (let i = 0; i < 2; i++) {
      const shown = await page(secret);
      expect(shown.status).toBe(200);
      expect(shown.headers.get('content-type')).toMatch(/text\/html/);
      expect(shown.headers.get('cache-control')).toBe('no-store');
      expect(shown.text).toContain('data-state="valid"');
      expect(shown.text).toContain('joiner@example.com');
      expect(shown.text).toContain('value="Jo Iner"');
    }

    const joined = await accept({ token: secret, name: 'Jo Iner', username: 'jo.iner', password: 'a long passphrase' });
    expect(joined.status).toBe(200);
    expect(joined.body).toEqual({ _id: expect.any(String), username: 'jo.iner' });

    const signIn = await app.request('POST', '/v1/auth/signin', { json: { username: 'jo.iner', password: 'a long passphrase' } });
    expect(signIn.status).toBe(200);
    expect(signIn.body).toMatchObject({ name: 'Jo Iner', username: 'jo.iner', email: 'joiner@example.com', role: { name: 'member' } });

    const user = await userByEmail('joiner@example.com');
    expect(user).toMatchObject({ username: 'jo.iner', name: 'Jo Iner', updated_by: user._id });
    expect(user.joined_date).toMatch(/Z$/);

    const events = await app.api.container.cradle.dataSource.query(
      'SELECT type, payload FROM outbox_events WHERE aggregate_id = ? ORDER BY id',
      [user._id],
    );
    expect(events.map((e: { type: string }) => e.type)).toEqual(['UserInvited', 'UserJoined']);
    const joinedData = JSON.parse(events[1].payload);
    expect(joinedData).toEqual({
      user_id: user._id,
      email: 'joiner@example.com',
      username: 'jo.iner',
      name: 'Jo Iner',
      role: { _id: SEEDED_ROLES.member, name: 'member' },
      joined_date: user.joined_date,
    });
    expect(events[1].payload).not.toMatch(/passphrase|argon2|token/i);

    // Single use.
    const again = await accept({ token: secret, name: 'X', username: 'someone.else', password: 'another passphrase' });
    expect(again.status).toBe(410); // as the page at the link says
    expect(again.body.code).toBe('INVITATION_USED');
    const usedPage = await page(secret);
    expect(usedPage.status).toBe(410);
    expect(usedPage.text).toContain('data-state="used"');
  });

  it('says clearly when a link is unknown', async () => {
    const response = await accept({ token: 'no-such-token', name: 'A', username: 'abc', password: 'a long passphrase' });
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('INVITATION_NOT_FOUND');
    const shown = await page('no-such-token');
    expect(shown.status).toBe(404);
    expect(shown.text).toContain('data-state="unknown"');
    expect((await page('')).status).toBe(404);
  });

  it('refuses a username that is taken (any case) and leaves the invitation usable', async () => {
    const secret = await inviteAndGetLink('clash@example.com');
    const taken = await accept({ token: secret, name: 'Clash', username: 'ADMIN', password: 'a long passphrase' });
    expect(taken.status).toBe(409);
    expect(taken.body.code).toBe('USERNAME_TAKEN');
    expect((await page(secret)).status).toBe(200);
    expect((await accept({ token: secret, name: 'Clash', username: 'clash', password: 'a long passphrase' })).status).toBe(200);
  });

  it('lists every invalid field at once and applies the password rules of sign-in', async () => {
    const secret = await inviteAndGetLink('rules@example.com');
    const bad = await accept({ token: secret, name: '', username: 'x', password: 'short' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['name', 'password', 'username']);
    const tooLong = await accept({ token: secret, name: 'R', username: 'rules', password: 'p'.repeat(129) });
    expect(tooLong.status).toBe(400);
    expect((await page(secret)).status).toBe(200);
  });

  it('resend kills the old link and works after expiry; the new link joins', async () => {
    const first = await inviteAndGetLink('resend@example.com');
    const user = await userByEmail('resend@example.com');

    clock.advance(SEVEN_DAYS_MS + 1000);
    const expiredPage = await page(first);
    expect(expiredPage.status).toBe(410);
    expect(expiredPage.text).toContain('data-state="expired"');
    const expired = await accept({ token: first, name: 'R', username: 'resent', password: 'a long passphrase' });
    expect(expired.status).toBe(410);
    expect(expired.body.code).toBe('INVITATION_EXPIRED');

    const before = mailer.sent.length;
    const resent = await app.request('POST', `/v1/users/${user._id}/invitation/resend`, { token });
    expect(resent.status).toBe(202);
    const second = await waitForMail('resend@example.com', before);
    expect(second).not.toBe(first);
    expect((await page(first)).status).toBe(404);
    expect((await accept({ token: first, name: 'R', username: 'resent', password: 'a long passphrase' })).status).toBe(404);
    expect((await accept({ token: second, name: 'R', username: 'resent', password: 'a long passphrase' })).status).toBe(200);

    const onJoined = await app.request('POST', `/v1/users/${user._id}/invitation/resend`, { token });
    expect(onJoined.status).toBe(409);
    expect(onJoined.body.code).toBe('USER_ALREADY_JOINED');
    expect((await app.request('DELETE', `/v1/users/${user._id}/invitation`, { token })).status).toBe(409);
  });

  it('revoke removes the pending user and its link', async () => {
    const secret = await inviteAndGetLink('revoke@example.com');
    const user = await userByEmail('revoke@example.com');
    expect((await app.request('DELETE', `/v1/users/${user._id}/invitation`, { token })).status).toBe(204);
    expect(await userByEmail('revoke@example.com')).toBeUndefined();
    expect((await page(secret)).status).toBe(404);
    expect((await accept({ token: secret, name: 'R', username: 'revoked', password: 'a long passphrase' })).status).toBe(404);
    expect((await app.request('DELETE', `/v1/users/${user._id}/invitation`, { token })).status).toBe(404);
    expect((await app.request('POST', `/v1/users/${user._id}/invitation/resend`, { token })).status).toBe(404);
    const events = await app.api.container.cradle.dataSource.query('SELECT type FROM outbox_events WHERE aggregate_id = ? ORDER BY id', [user._id]);
    expect(events.map((e: { type: string }) => e.type)).toEqual(['UserInvited', 'UserInvitationRevoked']);
    // The address is free again.
    expect((await app.request('POST', '/v1/users/invite', { token, json: { email: 'revoke@example.com' } })).status).toBe(201);
  });

  it('revoke removes an invitee that was deactivated too, and frees its address', async () => {
    expect((await app.request('POST', '/v1/users/invite', { token, json: { email: 'revoke-deactivated@example.com' } })).status).toBe(201);
    const user = await userByEmail('revoke-deactivated@example.com');
    expect((await app.request('POST', `/v1/users/${user._id}/deactivate`, { token })).status).toBe(200);
    const revoked = await app.request('DELETE', `/v1/users/${user._id}/invitation`, { token });
    expect({ status: revoked.status, body: revoked.body }).toEqual({ status: 204, body: undefined });
    expect((await app.request('GET', `/v1/users/${user._id}`, { token })).status).toBe(404);
    const events = await app.api.container.cradle.dataSource.query('SELECT type FROM outbox_events WHERE aggregate_id = ? ORDER BY id', [user._id]);
    expect(events.map((e: { type: string }) => e.type)).toEqual(['UserInvited', 'UserDeactivated', 'UserInvitationRevoked']);
    expect((await app.request('POST', '/v1/users/invite', { token, json: { email: 'revoke-deactivated@example.com' } })).status).toBe(201);
  });

  it('revoke holds the hand-out rule as resend does: an inviter lacking the role\'s permissions gets 403, and the invitation stays', async () => {
    const inviterRole = { id: '01a1fc99-0000-7000-8000-0000000001e1', name: 'inviter-only', permissions: ['users:invite'] };
    await app.addRole(inviterRole);
    await app.addJoinedUser({ username: 'inviter.only', password: 'inviter-password-1', email: 'inviter.only@example.com', role: inviterRole });
    const inviterToken = await app.signIn('inviter.only', 'inviter-password-1');
    const invited = await app.request('POST', '/v1/users/invite', { token, json: { email: 'future.admin@example.com', role: 'admin' } });
    expect(invited.status).toBe(201);
    const user = await userByEmail('future.admin@example.com');

    const resent = await app.request('POST', `/v1/users/${user._id}/invitation/resend`, { token: inviterToken });
    const revoked = await app.request('DELETE', `/v1/users/${user._id}/invitation`, { token: inviterToken });
    expect([resent.status, revoked.status]).toEqual([403, 403]);
    expect(revoked.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect((await app.request('GET', `/v1/users/${user._id}`, { token })).body.status).toBe('pending');
  });

  it('a revoke racing an accept never deletes the user who joined: one of them wins, the loser gets 409 or 404/410', async () => {
    for (let round = 0; round < 12; round++) {
      const email = `race-${round}@example.com`;
      const secret = await inviteAndGetLink(email);
      const user = await userByEmail(email);
      const [accepted, revoked] = await Promise.all([
        accept({ token: secret, name: 'Racer', username: `racer.${round}`, password: 'a long passphrase' }),
        app.request('DELETE', `/v1/users/${user._id}/invitation`, { token }),
      ]);
      const after = await app.request('GET', `/v1/users/${user._id}`, { token });
      const types = (await app.api.container.cradle.dataSource.query('SELECT type FROM outbox_events WHERE aggregate_id = ? ORDER BY id', [user._id])).map(
        (e: { type: string }) => e.type,
      );
      if (accepted.status === 200) {
        expect([round, revoked.status]).toEqual([round, 409]);
        expect(after.body.status).toBe('active');
        expect(types).not.toContain('UserInvitationRevoked');
      } else {
        expect([round, revoked.status, accepted.status]).toEqual([round, 204, expect.any(Number)]);
        expect([404, 410]).toContain(accepted.status);
        expect(after.status).toBe(404);
        expect(types).not.toContain('UserJoined');
      }
    }
  });

  it('takes resends, revokes and changes of one invitee sent at once in turn: none refused for a conflict nobody asked about', async () => {
    const invitee = async (email: string) => {
      const invited = await app.request('POST', '/v1/users/invite', { token, json: { email } });
      expect(invited.status).toBe(201);
      return invited.headers.get('location')!.split('/').pop()!;
    };
    const resend = (id: string) => app.request('POST', `/v1/users/${id}/invitation/resend`, { token });
    const revoke = (id: string) => app.request('DELETE', `/v1/users/${id}/invitation`, { token });
    const rename = (id: string, name: string) => app.request('PATCH', `/v1/users/${id}`, { token, json: { name } });

    const twice = await invitee('turns-1@example.com');
    expect((await Promise.all([resend(twice), resend(twice), resend(twice), rename(twice, 'Turn Taker')])).map((r) => r.status)).toEqual([202, 202, 202, 200]);
    expect((await app.request('GET', `/v1/users/${twice}`, { token })).headers.get('etag')).toBe('"5"');

    // A revoke and a rename: whichever goes first, the revoke is done; the rename applies or finds no one.
    const renamed = await invitee('turns-2@example.com');
    const [revoked, changed] = await Promise.all([revoke(renamed), rename(renamed, 'Gone Soon')]);
    expect(revoked.status).toBe(204);
    expect([200, 404]).toContain(changed.status);
    // Five revokes at once: one does it, the others find no one.
    const many = await invitee('turns-3@example.com');
    expect((await Promise.all(Array.from({ length: 5 }, () => revoke(many)))).map((r) => r.status).sort()).toEqual([204, 404, 404, 404, 404]);
  });

  it('guards resend and revoke with a token and users:invite', async () => {
    const anyId = '01a1fc99-0000-7000-8000-00000000abcd';
    expect((await app.request('POST', `/v1/users/${anyId}/invitation/resend`)).status).toBe(401);
    expect((await app.request('DELETE', `/v1/users/${anyId}/invitation`)).status).toBe(401);
    await app.addJoinedUser({
      username: 'member.only',
      password: 'member-password-1',
      email: 'member.only@example.com',
      role: { id: SEEDED_ROLES.member, name: 'member', permissions: [] },
    });
    const memberToken = await app.signIn('member.only', 'member-password-1');
    expect((await app.request('POST', `/v1/users/${anyId}/invitation/resend`, { token: memberToken })).status).toBe(403);
    expect((await app.request('DELETE', `/v1/users/${anyId}/invitation`, { token: memberToken })).status).toBe(403);
  });
});
