import { asValue } from 'awilix';
import type { Role } from '../../src/domain/roles/role';
import { SEEDED_ROLES } from '../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { AdjustableClock } from '../support/adjustable-clock';
import { CapturingMailer } from '../support/capturing-mailer';
import { startTestApp, type TestApp, type TestResponse } from '../support/test-app';

const member: Role = { id: SEEDED_ROLES.member, name: 'member', permissions: [] };
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const NEW_PASSWORD = 'a freshly reset passphrase';
const stateOf = (html: string) => /<p id="state" data-state="([a-z]+)"/.exec(html)?.[1];
const outcomeOf = (html: string) => /<p id="result"[^>]*data-outcome="([a-z-_A-Z]+)"/.exec(html)?.[1];

/**
 * Password reset by mail (#10) over HTTP, on the embedded default (in-process bus → mailer): request,
 * the mailed link, its page, the confirmation (JSON and the page's form without JavaScript), and what a
 * reset ends. Every answer is also checked against the OpenAPI document (test/support/test-app.ts).
 */
describe('password reset by mail (#10)', () => {
  let app: TestApp;
  const mailer = new CapturingMailer();
  const clock = new AdjustableClock();
  let counter = 0;

  beforeAll(async () => {
    app = await startTestApp({ LOCKOUT_THRESHOLD: '3', PASSWORD_RESET_RATE_LIMIT: '0' }, { mailer: asValue(mailer), clock: asValue(clock) });
  });
  afterAll(async () => app?.close());

  const person = async () => {
    counter += 1;
    const username = `resetter-${counter}`;
    const password = `${username}-old-password`;
    const email = `${username}@example.com`;
    const user = await app.addJoinedUser({ username, password, email, role: member });
    return { id: user.id, username, password, email };
  };
  const requestReset = (email: string) => app.request('POST', '/v1/auth/password-reset', { json: { email } });
  /** Asks for a reset and answers the token of the mail it brings. */
  const mailedToken = async (email: string) => {
    const before = mailer.sent.length;
    expect((await requestReset(email)).status).toBe(202);
    return mailer.tokenSentTo(email, before);
  };
  const confirm = (token: string, password = NEW_PASSWORD) => app.request('POST', '/v1/auth/password-reset/confirm', { json: { token, password } });
  const signIn = (username: string, password: string) => app.request('POST', '/v1/auth/signin', { json: { username, password } });
  const page = (token: string) => app.request('GET', `/password-reset?token=${encodeURIComponent(token)}`);
  const postForm = (fields: Record<string, string>): Promise<TestResponse> =>
    app.request('POST', '/password-reset', { body: new URLSearchParams(fields).toString(), headers: FORM });

  it('mails a link whose page sets a new password: old password and every old token refused, the new one works, the link once', async () => {
    const p = await person();
    const session = await signIn(p.username, p.password);
    expect(session.status).toBe(200);

    const token = await mailedToken(p.email);
    const mail = mailer.lastTo(p.email);
    expect(mail.link).toMatch(/\/password-reset\?token=/);
    const expiresIn = mail.expiresAt.getTime() - clock.now().getTime();
    expect(expiresIn).toBeGreaterThan(3_500_000);
    expect(expiresIn).toBeLessThanOrEqual(3_600_000);

    // The page consumes nothing: opened twice, it still shows the form.
    for (let i = 0; i < 2; i++) {
      const shown = await page(token);
      expect(shown.status).toBe(200);
      expect(stateOf(shown.text)).toBe('valid');
      expect(shown.text).toContain(p.email);
      expect(shown.text).toMatch(/expires on <time datetime="[^"]+">[^<]+<\/time>/);
      expect(shown.headers.get('cache-control')).toBe('no-store');
    }

    const confirmed = await confirm(token);
    expect(confirmed.status).toBe(204);

    expect((await signIn(p.username, p.password)).status).toBe(401);
    expect((await signIn(p.username, NEW_PASSWORD)).status).toBe(200);
    expect((await app.request('GET', '/v1/me', { token: session.body.accessToken })).status).toBe(401);
    expect((await app.request('POST', '/v1/auth/refresh', { json: { refreshToken: session.body.refreshToken } })).status).toBe(401);

    const again = await confirm(token, 'another new passphrase');
    expect(again.status).toBe(410);
    expect(again.body.code).toBe('PASSWORD_RESET_USED');
    expect((await page(token)).status).toBe(410);
    expect(stateOf((await page(token)).text)).toBe('used');
    expect((await signIn(p.username, NEW_PASSWORD)).status).toBe(200);
  });

  it('clears the sign-in lockout of the account', async () => {
    const p = await person();
    for (let i = 0; i < 3; i++) expect((await signIn(p.username, 'a wrong password')).status).toBe(401);
    // Locked: even the right password is refused.
    expect((await signIn(p.username, p.password)).status).toBe(401);

    expect((await confirm(await mailedToken(p.email))).status).toBe(204);

    expect((await signIn(p.username, NEW_PASSWORD)).status).toBe(200);
  });

  it('answers every address alike, and mails only an active user', async () => {
    const p = await person();
    const admin = await app.signIn();
    const invited = await app.request('POST', '/v1/users/invite', { token: admin, json: { email: 'reset.pending@example.com' } });
    expect(invited.status).toBe(201);
    const gone = await person();
    expect((await app.request('POST', `/v1/users/${gone.id}/deactivate`, { token: admin })).status).toBeLessThan(300);
    const before = mailer.sent.length;

    const answers = [];
    for (const email of ['nobody.here@example.com', 'reset.pending@example.com', gone.email, p.email.toUpperCase()]) answers.push(await requestReset(email));

    expect(answers.map((a) => a.status)).toEqual([202, 202, 202, 202]);
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    await mailer.tokenSentTo(p.email, before);
    const resets = mailer.sent.slice(before).filter((m) => m.link.includes('/password-reset'));
    expect(resets.map((m) => m.to)).toEqual([p.email]);
  });

  it('finds the account by a look-alike spelling of its address, and refuses an address with an invisible character (#22)', async () => {
    counter += 1;
    const username = `resetter-${counter}`;
    const email = `ren\u00e9-${counter}@example.com`;
    await app.addJoinedUser({ username, password: `${username}-old-password`, email, role: member });
    const before = mailer.sent.length;

    expect((await requestReset(`RENE\u0301-${counter}@example.com`)).status).toBe(202);
    await mailer.tokenSentTo(email, before);

    const hidden = await requestReset(`ren\u00e9\u200b-${counter}@example.com`);
    expect(hidden.status).toBe(400);
    expect(hidden.body).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ field: 'email' }] });
  });

  it('a newer request kills the older link', async () => {
    const p = await person();
    const older = await mailedToken(p.email);
    const newer = await mailedToken(p.email);

    expect((await page(older)).status).toBe(404);
    const refused = await confirm(older);
    expect(refused.status).toBe(404);
    expect(refused.body.code).toBe('PASSWORD_RESET_NOT_FOUND');
    expect((await confirm(newer)).status).toBe(204);
  });

  it('a password change, or a deactivation, kills the outstanding link: a reactivation does not bring it back', async () => {
    const changer = await person();
    const link = await mailedToken(changer.email);
    const token = (await signIn(changer.username, changer.password)).body.accessToken as string;
    const changed = await app.request('POST', '/v1/me/password', { token, json: { current_password: changer.password, new_password: `${changer.password}-new` } });
    expect(changed.status).toBe(200);
    expect((await page(link)).status).toBe(404);
    expect({ status: (await confirm(link)).status }).toEqual({ status: 404 });
    expect((await signIn(changer.username, `${changer.password}-new`)).status).toBe(200);

    const paused = await person();
    const pausedLink = await mailedToken(paused.email);
    const admin = await app.signIn();
    expect((await app.request('POST', `/v1/users/${paused.id}/deactivate`, { token: admin })).status).toBe(200);
    expect((await app.request('POST', `/v1/users/${paused.id}/reactivate`, { token: admin })).status).toBe(200);
    expect((await page(pausedLink)).status).toBe(404);
    const refused = await confirm(pausedLink);
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 404, code: 'PASSWORD_RESET_NOT_FOUND' });
    expect((await signIn(paused.username, paused.password)).status).toBe(200);
  });

  it('refuses a password the policy refuses (400) and keeps the link; an unknown token is 404', async () => {
    const p = await person();
    const token = await mailedToken(p.email);

    const short = await confirm(token, 'short');
    expect(short.status).toBe(400);
    expect(short.body.code).toBe('VALIDATION_FAILED');
    expect((await page(token)).status).toBe(200);
    expect((await confirm('no-such-token')).status).toBe(404);
    expect((await page('no-such-token')).status).toBe(404);
    expect((await app.request('GET', '/password-reset')).status).toBe(404);
  });

  describe('the page’s form without JavaScript', () => {
    it('sets the password with 200 and a page; refused → the form again (400); used → the 410 page', async () => {
      const p = await person();
      const token = await mailedToken(p.email);

      const refused = await postForm({ token, password: 'short' });
      expect(refused.status).toBe(400);
      expect(refused.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(stateOf(refused.text)).toBe('valid');
      expect(outcomeOf(refused.text)).toBe('VALIDATION_FAILED');

      const set = await postForm({ token, password: NEW_PASSWORD });
      expect(set.status).toBe(200);
      expect(outcomeOf(set.text)).toBe('password-set');
      expect((await signIn(p.username, NEW_PASSWORD)).status).toBe(200);

      const used = await postForm({ token, password: 'another new passphrase' });
      expect(used.status).toBe(410);
      expect(stateOf(used.text)).toBe('used');
      expect((await postForm({ token: 'no-such-token', password: NEW_PASSWORD })).status).toBe(404);
    });
  });

  // Last: it moves the clock past the link's lifetime.
  it('a link is dead after PASSWORD_RESET_TTL (1h by default): 410 expired', async () => {
    const p = await person();
    const token = await mailedToken(p.email);
    clock.advance(3_600_000);

    const shown = await page(token);
    expect(shown.status).toBe(410);
    expect(stateOf(shown.text)).toBe('expired');
    const refused = await confirm(token);
    expect(refused.status).toBe(410);
    expect(refused.body.code).toBe('PASSWORD_RESET_EXPIRED');
  });
});

/** The request's limits: per client address (ADDRESS_RATE_LIMIT) and per target address (PASSWORD_RESET_RATE_LIMIT), known or not. */
describe('password-reset request rate limits (#10)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(
      { ADDRESS_RATE_LIMIT: '4', PASSWORD_RESET_RATE_LIMIT: '2', TRUSTED_PROXIES: '127.0.0.1' },
      { mailer: asValue(new CapturingMailer()) },
    );
  });
  afterAll(async () => app?.close());

  const requestFrom = (address: string, email: string) =>
    app.request('POST', '/v1/auth/password-reset', { json: { email }, headers: { 'x-forwarded-for': address } });

  it.each([
    ['an existing address', 'admin@example.com'],
    ['an unknown address', 'nobody.at.all@example.com'],
  ])('lets 2 requests an hour for %s through, from any client addresses, then answers 429 with Retry-After', async (_why, email) => {
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await requestFrom(`198.51.100.${i + 1}`, email.toUpperCase())).status);
    expect(statuses).toEqual([202, 202, 429]);
    const limited = await requestFrom('198.51.100.50', email);
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('TOO_MANY_REQUESTS');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(60);
    // Its rate-limit headers are the limit that refused it (2 an hour for the address), not the client's budget.
    expect({
      limit: limited.headers.get('x-ratelimit-limit'),
      remaining: limited.headers.get('x-ratelimit-remaining'),
      reset: limited.headers.get('x-ratelimit-reset'),
    }).toEqual({ limit: '2', remaining: '0', reset: limited.headers.get('retry-after') });
  });

  it('lets 4 requests a minute from one client address through, whatever the target, then 429', async () => {
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await requestFrom('203.0.113.77', `target-${i}@example.com`)).status);
    expect(statuses).toEqual([202, 202, 202, 202, 429]);
  });
});
