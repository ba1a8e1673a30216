import { asValue } from 'awilix';
import { AdjustableClock } from '../support/adjustable-clock';
import { startTestApp, type TestApp } from '../support/test-app';

const HEADER = { 'x-console-session': '1' };
const cookieOf = (setCookie: string | null) => /ac_console_session=([^;]*)/.exec(setCookie ?? '')?.[1] ?? null;

/** The console's calls on `app()`: a sign-in, the hand-over of its refresh token, a renewal from the cookie. */
function consoleCalls(app: () => TestApp) {
  const signIn = async () => (await app().request('POST', '/v1/auth/signin', { json: { username: 'admin', password: 'admin-password-123' } })).body;
  const handOver = (refreshToken: string, headers: Record<string, string> = HEADER) =>
    app().request('POST', '/v1/auth/console-session', { json: { refreshToken }, headers });
  const refresh = (cookie: string | null, headers: Record<string, string> = HEADER) =>
    app().request('POST', '/v1/auth/console-session/refresh', { headers: { ...headers, ...(cookie !== null ? { cookie: `other=1; ac_console_session=${cookie}` } : {}) } });
  return { signIn, handOver, refresh };
}

/**
 * The admin console's session (#25) over HTTP: a sign-in's refresh token handed into an HttpOnly cookie scoped to
 * /v1/auth/console-session, exchanged from it (rotated), refused from another origin, and ended by sign-out.
 */
describe('the console session', () => {
  let app: TestApp;
  const { signIn, handOver, refresh } = consoleCalls(() => app);

  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => app?.close());

  it('hands the refresh token over to an HttpOnly, SameSite=Strict cookie of one path, using up the one a script saw', async () => {
    const { refreshToken } = await signIn();
    const answer = await handOver(refreshToken);
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.body)).toEqual(['accessToken']);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const setCookie = answer.headers.get('set-cookie')!;
    expect(setCookie).toMatch(/^ac_console_session=[0-9a-f]{32}[A-Za-z0-9_-]{43}; Path=\/v1\/auth\/console-session; Max-Age=1800; HttpOnly; SameSite=Strict$/);
    expect(cookieOf(setCookie)).not.toBe(refreshToken);
    // The token the script saw is used: presenting it again is a reuse, refused.
    expect((await app.request('POST', '/v1/auth/refresh', { json: { refreshToken } })).status).toBe(401);
    expect((await app.request('GET', '/v1/me', { token: answer.body.accessToken })).status).toBe(200);
  });

  it('exchanges the cookie for a new access token and rotates it; the old cookie is then refused and cleared', async () => {
    const first = cookieOf((await handOver((await signIn()).refreshToken)).headers.get('set-cookie'));
    const renewed = await refresh(first);
    expect(renewed.status).toBe(200);
    const second = cookieOf(renewed.headers.get('set-cookie'));
    expect(second).not.toBe(first);
    expect((await app.request('GET', '/v1/me', { token: renewed.body.accessToken })).status).toBe(200);
    const reused = await refresh(first);
    expect([reused.status, reused.body.code]).toEqual([401, 'INVALID_REFRESH_TOKEN']);
    expect(reused.headers.get('set-cookie')).toMatch(/^ac_console_session=; Path=\/v1\/auth\/console-session; Max-Age=0; HttpOnly; SameSite=Strict$/);
    // A reuse revokes the family: the successor dies too.
    expect((await refresh(second)).status).toBe(401);
  });

  it('answers 401 without a cookie, and the same 401 for a malformed one', async () => {
    for (const cookie of [null, 'not a token!']) {
      const answer = await refresh(cookie);
      expect([answer.status, answer.body.code]).toEqual([401, 'INVALID_REFRESH_TOKEN']);
    }
  });

  it('refuses a request without the console header (400) and a browser request from another origin (403)', async () => {
    const cookie = cookieOf((await handOver((await signIn()).refreshToken)).headers.get('set-cookie'));
    const bare = await refresh(cookie, {});
    expect([bare.status, bare.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    const crossOrigin = await refresh(cookie, { ...HEADER, origin: 'https://evil.example' });
    expect([crossOrigin.status, crossOrigin.body.code]).toEqual([403, 'CROSS_SITE_REQUEST']);
    const crossSite = await refresh(cookie, { ...HEADER, 'sec-fetch-site': 'cross-site' });
    expect([crossSite.status, crossSite.body.code]).toEqual([403, 'CROSS_SITE_REQUEST']);
    expect((await handOver((await signIn()).refreshToken, { ...HEADER, origin: 'null' })).status).toBe(403);
    // The refused requests did not use the cookie up: this origin's request still works.
    const sameOrigin = await refresh(cookie, { ...HEADER, origin: app.url, 'sec-fetch-site': 'same-origin' });
    expect(sameOrigin.status).toBe(200);
  });

  it('ends the session on the server: every token of the user, and the cookie cleared', async () => {
    const started = await handOver((await signIn()).refreshToken);
    const cookie = cookieOf(started.headers.get('set-cookie'));
    const ended = await app.request('DELETE', '/v1/auth/console-session', { token: started.body.accessToken });
    expect(ended.status).toBe(204);
    expect(ended.headers.get('set-cookie')).toContain('Max-Age=0');
    expect((await app.request('GET', '/v1/me', { token: started.body.accessToken })).status).toBe(401);
    expect((await refresh(cookie)).status).toBe(401);
    expect((await app.request('DELETE', '/v1/auth/console-session')).status).toBe(401);
  });

  it('refuses a hand-over of an unknown token with the refresh route’s 401, and a malformed body with 400', async () => {
    expect((await handOver('x'.repeat(43))).status).toBe(401);
    expect((await app.request('POST', '/v1/auth/console-session', { json: {}, headers: HEADER })).status).toBe(400);
  });
});

/** An administrator's session is shorter than an app's: CONSOLE_SESSION_TTL from sign-in, CONSOLE_SESSION_IDLE_TTL unrenewed. */
describe('the console session’s ends', () => {
  let app: TestApp;
  const clock = new AdjustableClock();
  const { signIn, handOver, refresh } = consoleCalls(() => app);
  const MINUTE = 60_000;

  beforeAll(async () => {
    app = await startTestApp({}, { clock: asValue(clock) });
  });
  afterAll(async () => app?.close());

  it('ends 10 hours after the sign-in however often it is renewed, and clears the cookie', async () => {
    let cookie = cookieOf((await handOver((await signIn()).refreshToken)).headers.get('set-cookie'));
    for (let renewal = 0; renewal < 23; renewal++) {
      clock.advance(25 * MINUTE);
      const renewed = await refresh(cookie);
      expect(renewed.status).toBe(200);
      cookie = cookieOf(renewed.headers.get('set-cookie'));
    }
    clock.advance(25 * MINUTE);
    const ended = await refresh(cookie);
    expect([ended.status, ended.body.code]).toEqual([401, 'INVALID_REFRESH_TOKEN']);
    expect(ended.headers.get('set-cookie')).toContain('Max-Age=0');
  });

  it('ends when the cookie was not renewed for 30 minutes', async () => {
    const idle = cookieOf((await handOver((await signIn()).refreshToken)).headers.get('set-cookie'));
    const kept = cookieOf((await handOver((await signIn()).refreshToken)).headers.get('set-cookie'));
    clock.advance(30 * MINUTE - 5_000);
    expect((await refresh(kept)).status).toBe(200);
    clock.advance(5_000);
    expect((await refresh(idle)).status).toBe(401);
  });

  it('takes no sign-in older than the session’s end: an app’s long session is not carried into the console', async () => {
    const { refreshToken } = await signIn();
    clock.advance(10 * 60 * MINUTE);
    // The token is still good for the app that holds it (REFRESH_TOKEN_TTL), not for a console session.
    const again = (await app.request('POST', '/v1/auth/refresh', { json: { refreshToken } })).body.refreshToken;
    expect(typeof again).toBe('string');
    expect((await handOver(again)).status).toBe(401);
  });
});
