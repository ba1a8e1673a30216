import { asValue } from 'awilix';
import { AdjustableClock } from '../support/adjustable-clock';
import { CapturingMailer } from '../support/capturing-mailer';
import { startTestApp, type TestApp, type TestResponse } from '../support/test-app';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const SEVEN_DAYS_MS = 7 * 24 * 3600 * 1000;

/** The text of the element with this id, or null when it is hidden or absent. */
function shown(html: string, id: string): string | null {
  const match = new RegExp(`<p id="${id}"([^>]*)>([^<]*)</p>`).exec(html);
  return match && !/\shidden\b/.test(match[1]!) ? match[2]! : null;
}
const stateOf = (html: string) => /<p id="state" data-state="([a-z]+)"/.exec(html)?.[1];
const inputOf = (html: string, id: string) => new RegExp(`<input id="${id}" [^>]*>`).exec(html)?.[0] ?? '';

/**
 * The invitation page's form posted without JavaScript (POST /invitations/accept), over HTTP: every
 * answer a page, with the status the JSON API gives, and the API's rate limit. Every answer is also
 * checked against the OpenAPI document (test/support/test-app.ts). The browser clicks through it in
 * accept-page.browser.test.ts.
 */
describe('the invitation form posted without JavaScript', () => {
  let app: TestApp;
  const mailer = new CapturingMailer();
  const clock = new AdjustableClock();
  const logs: string[] = [];

  beforeAll(async () => {
    app = await startTestApp({ LOG_LEVEL: 'debug' }, { mailer: asValue(mailer), clock: asValue(clock) }, undefined, { write: (line) => logs.push(line) });
  });
  afterAll(async () => app?.close());

  async function invite(email: string): Promise<string> {
    const before = mailer.sent.length;
    expect((await app.request('POST', '/v1/users/invite', { token: await app.signIn(), json: { email, name: 'Form User' } })).status).toBe(201);
    return mailer.tokenSentTo(email, before);
  }

  const post = (fields: Record<string, string>, on: TestApp = app, headers: Record<string, string> = {}): Promise<TestResponse> =>
    on.request('POST', '/invitations/accept', { body: new URLSearchParams(fields).toString(), headers: { ...FORM, ...headers } });
  const fields = (token: string, overrides: Record<string, string> = {}) => ({ token, name: 'Form User', username: 'form.user', password: 'a form passphrase', ...overrides });
  const expectPage = (response: TestResponse, status: number) => {
    expect({ status: response.status, type: response.headers.get('content-type') }).toEqual({ status, type: 'text/html; charset=utf-8' });
    expect(response.headers.get('cache-control')).toBe('no-store');
  };
  const pageOf = async (token: string) => stateOf((await app.request('GET', `/invitations/accept?token=${encodeURIComponent(token)}`)).text);

  it('joins with 200 and the joined page; the user signs in with the chosen password', async () => {
    const token = await invite('joins@example.com');
    const joined = await post(fields(token, { username: 'joins' }));
    expectPage(joined, 200);
    expect(shown(joined.text, 'result')).toBe('You have joined as joins.');
    expect(joined.text).toContain('Next: sign in to the application you were invited to');
    expect((await app.request('POST', '/v1/auth/signin', { json: { username: 'joins', password: 'a form passphrase' } })).status).toBe(200);
  });

  it('answers 409 with the form again, "taken" once at the username, name and username kept, no password, nothing consumed', async () => {
    const token = await invite('taken@example.com');
    const refused = await post(fields(token, { name: 'Taken <b>User</b>', username: 'admin' }));
    expectPage(refused, 409);
    expect(shown(refused.text, 'username-error')).toBe('Username is already taken: choose another one');
    expect(refused.text.split('already taken').length - 1).toBe(1);
    expect(shown(refused.text, 'password-error')).toBeNull();
    expect(inputOf(refused.text, 'username')).toContain('value="admin" aria-invalid="true" aria-describedby="username-error username-hint" autofocus');
    expect(inputOf(refused.text, 'name')).toContain('value="Taken &lt;b&gt;User&lt;/b&gt;"');
    expect(refused.text).not.toContain('a form passphrase');
    expect(refused.text).toContain(`<input type="hidden" name="token" value="${token}">`);
    expect(await pageOf(token)).toBe('valid');
  });

  it('answers a body its schema refuses with 400 and the form, not problem+json: at the field, or in the status line', async () => {
    const token = await invite('schema@example.com');
    const tooLong = await post(fields(token, { username: 'u'.repeat(65) }));
    expectPage(tooLong, 400);
    expect(shown(tooLong.text, 'username-error')).toBe('Username must NOT have more than 64 characters');
    const extra = await post({ ...fields(token), role: 'admin' });
    expectPage(extra, 400);
    // No field of the form is at fault: the status line says the problem's detail, as the script does.
    expect(shown(extra.text, 'result')).toBe('Some fields are invalid');
    expect(extra.text).toContain('data-outcome="VALIDATION_FAILED"');
    const twice = await app.request('POST', '/invitations/accept', { body: `${new URLSearchParams(fields(token))}&password=other`, headers: FORM });
    expectPage(twice, 400);
    expect(shown(twice.text, 'password-error')).toBe('Password must be string');
    expect(await pageOf(token)).toBe('valid');
  });

  it('answers 404 with the unknown link’s page, for a token no invitation has or none at all', async () => {
    for (const body of [fields('no-such-token'), { name: 'x', username: 'xyz', password: 'p' }]) {
      const response = await post(body);
      expectPage(response, 404);
      expect(stateOf(response.text)).toBe('unknown');
    }
  });

  it('answers 410 with the used or expired link’s page', async () => {
    const used = await invite('used@example.com');
    expect((await post(fields(used, { username: 'used.once' }))).status).toBe(200);
    const again = await post(fields(used, { username: 'used.twice' }));
    expectPage(again, 410);
    expect(stateOf(again.text)).toBe('used');

    const expiring = await invite('expired@example.com');
    clock.advance(SEVEN_DAYS_MS + 60_000);
    try {
      const expired = await post(fields(expiring, { username: 'too.late' }));
      expectPage(expired, 410);
      expect(stateOf(expired.text)).toBe('expired');
    } finally {
      clock.advance(-(SEVEN_DAYS_MS + 60_000));
    }
  });

  it('is a method of the page’s path: another method answers 405 with POST in Allow', async () => {
    const response = await app.request('PUT', '/invitations/accept');
    expect({ status: response.status, allow: response.headers.get('allow') }).toEqual({ status: 405, allow: 'GET, HEAD, POST' });
  });

  it('reads form bodies only: JSON there is 415 problem+json, and the JSON route still refuses a form with 415', async () => {
    const json = await app.request('POST', '/invitations/accept', { json: fields('x') });
    expect({ status: json.status, code: json.body?.code }).toEqual({ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' });
    const form = await app.request('POST', '/v1/invitations/accept', { body: new URLSearchParams(fields('x')).toString(), headers: FORM });
    expect({ status: form.status, code: form.body?.code }).toEqual({ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' });
  });

  it('writes no token and no password to the log', async () => {
    const token = await invite('quiet@example.com');
    const before = logs.length;
    await post(fields(token, { username: 'admin', password: 'a quiet passphrase' }));
    await post(fields(token, { username: 'quiet.one', password: 'a quiet passphrase' }));
    const written = logs.slice(before).join('\n');
    expect(written).toContain('/invitations/accept');
    expect(written).not.toContain(token);
    expect(written).not.toContain('quiet passphrase');
  });

  describe('the rate limit', () => {
    const LIMIT = 3;
    let limited: TestApp;
    beforeAll(async () => {
      limited = await startTestApp({ ADDRESS_RATE_LIMIT: String(LIMIT), TRUSTED_PROXIES: '127.0.0.1' });
    });
    afterAll(async () => limited?.close());

    it('is the JSON accept route’s per-address budget, shared: spent on either, refused on both with 429', async () => {
      const from = (address: string) => ({ 'x-forwarded-for': address });
      const body = fields('x'.repeat(43));
      const apiAccept = (address: string) => limited.request('POST', '/v1/invitations/accept', { json: body, headers: from(address) });
      const statuses = [(await apiAccept('203.0.113.30')).status];
      for (let i = 1; i < LIMIT; i++) statuses.push((await post(body, limited, from('203.0.113.30'))).status);
      expect(statuses).toEqual([404, 404, 404]);

      const refused = await post(body, limited, from('203.0.113.30'));
      expect({ status: refused.status, code: refused.body?.code }).toEqual({ status: 429, code: 'TOO_MANY_REQUESTS' });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await apiAccept('203.0.113.30')).status).toBe(429);
      // Another address has its own budget.
      expectPage(await post(body, limited, from('203.0.113.31')), 404);
    });
  });
});
