import type { Browser, CDPSession, Page } from 'playwright-core';
import { SEEDED_ROLES } from '../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { freePort } from '../support/free-port';
import { launchChromium } from '../support/headless-chromium';
import { oathtoolTotp } from '../support/oathtool';
import { PathStrippingProxy } from '../support/path-stripping-proxy';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * Passkeys through the account-security page (#24) in real Chromium, its WebAuthn answered by a CDP virtual
 * authenticator: register a passkey on the page, sign out, sign in again with the password and the passkey, and the
 * tokens the page got work. http://localhost is a secure context, so PUBLIC_URL names localhost and the port.
 */
describe('the account-security page in a browser, with a virtual authenticator', () => {
  let app: TestApp;
  let browser: Browser;
  let origin: string;

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://localhost:${port}`;
    app = await startTestApp({ PORT: String(port), PUBLIC_URL: origin });
    await app.addJoinedUser({ username: 'keyholder', password: 'keyholder-password-1', email: 'keyholder@example.com', role: { id: SEEDED_ROLES.member, name: 'member', permissions: [] } });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  const outcome = (page: Page, value: string) => page.waitForSelector(`#status[data-outcome="${value}"]`, { state: 'attached', timeout: 15_000 });

  async function withAuthenticator(page: Page): Promise<{ cdp: CDPSession; authenticatorId: string }> {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
    });
    return { cdp, authenticatorId };
  }

  async function passwordStep(page: Page) {
    await page.fill('#username', 'keyholder');
    await page.fill('#password', 'keyholder-password-1');
    await page.click('#sign-in');
  }

  it('registers a passkey through the page, signs out, and signs in again with the password and the passkey', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    // The password step's MFA_REQUIRED is a 401, and the wrong password below a 400, which Chromium notes in the console:
    // expected, not errors of the page.
    page.on('console', (message) => message.type() === 'error' && !/status of 40[01]/.test(message.text()) && errors.push(message.text()));
    page.on('pageerror', (error) => errors.push(error.message));
    const { cdp, authenticatorId } = await withAuthenticator(page);
    await page.goto(`${origin}/account/security`);

    // No factor yet: the password alone signs in.
    await passwordStep(page);
    await outcome(page, 'signed-in');
    expect(await page.locator('#who').innerText()).toBe('keyholder');
    expect(await page.locator('#no-passkeys').isVisible()).toBe(true);

    // Registering asks for the password first: none, or a wrong one, is said at its field and registers nothing.
    await page.fill('#passkey-name', 'Virtual key');
    await page.click('#register-passkey');
    await outcome(page, 'proof-missing');
    await page.fill('#passkey-proof', 'not-the-password-at-all');
    await page.click('#register-passkey');
    await outcome(page, 'WRONG_CURRENT_PASSWORD');
    expect(await page.locator('#passkey-proof-error').innerText()).toBe('That is not your password (too many tries lock the account for a while).');
    expect((await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials).toHaveLength(0);
    await page.fill('#passkey-proof', 'keyholder-password-1');
    await page.click('#register-passkey');
    await outcome(page, 'passkey-registered');
    expect(await page.locator('#passkey-proof-error').isVisible()).toBe(false);
    expect(await page.locator('#passkeys li').allInnerTexts()).toEqual(['Virtual key (not used yet)']);
    expect(await page.locator('#recovery-codes li').count()).toBe(10);
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0].rpId).toBe('localhost');

    await page.click('#sign-out');
    await outcome(page, 'signed-out');

    // Now the password asks for the second factor, and the passkey answers it.
    await passwordStep(page);
    await outcome(page, 'mfa-required');
    expect(await page.locator('#use-passkey').isVisible()).toBe(true);
    expect(await page.locator('#code-step').isVisible()).toBe(false);
    const signedIn = page.waitForResponse((r) => r.url().endsWith('/v1/auth/signin/mfa') && r.request().method() === 'POST');
    await page.click('#use-passkey');
    const answer = await signedIn;
    expect(answer.status()).toBe(200);
    const tokens = (await answer.json()) as { accessToken: string; refreshToken: string; username: string };
    await outcome(page, 'signed-in');
    expect(await page.locator('#passkeys li').allInnerTexts()).toEqual([expect.stringMatching(/^Virtual key \(last used \d{4}-/)]);
    const { credentials: used } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(used[0].signCount).toBeGreaterThan(0);

    // The tokens the page got are the seed's sign-in result, and they work.
    expect(tokens.username).toBe('keyholder');
    expect((await app.request('GET', '/v1/me', { token: tokens.accessToken })).body).toMatchObject({ username: 'keyholder' });
    expect((await app.request('POST', '/v1/auth/refresh', { json: { refreshToken: tokens.refreshToken } })).status).toBe(200);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('works behind a proxy that serves the service under a path: its script and every API call go under PUBLIC_URL’s path', async () => {
    const proxy = await PathStrippingProxy.start('/auth');
    const behind = await startTestApp({ PUBLIC_URL: proxy.publicUrl });
    proxy.target = behind.url;
    const page = await browser.newPage();
    try {
      await behind.addJoinedUser({ username: 'proxied', password: 'proxied-password-1', email: 'proxied@example.com', role: { id: SEEDED_ROLES.member, name: 'member', permissions: [] } });
      const requested: string[] = [];
      page.on('response', (r) => requested.push(`${new URL(r.url()).pathname} ${r.status()}`));
      await page.goto(`${proxy.publicUrl}/account/security`);
      await page.fill('#username', 'proxied');
      await page.fill('#password', 'proxied-password-1');
      await page.click('#sign-in');
      await outcome(page, 'signed-in');
      expect(await page.locator('#who').innerText()).toBe('proxied');
      expect(requested).toEqual(expect.arrayContaining(['/auth/account/security.js 200', '/auth/v1/auth/signin 200', '/auth/v1/me/mfa 200']));
      expect(requested.filter((line) => !line.startsWith('/auth/'))).toEqual([]);
    } finally {
      await page.close();
      await behind.close();
      await proxy.close();
    }
  });

  it('signs in with a recovery code, renews an expired token with its refresh token, and says when the session ended elsewhere', async () => {
    const port = await freePort();
    const here = `http://localhost:${port}`;
    const short = await startTestApp({ PORT: String(port), PUBLIC_URL: here, ACCESS_TOKEN_TTL: '2s' });
    const page = await browser.newPage();
    try {
      const credentials = { username: 'recoverer', password: 'recoverer-password-1' };
      await short.addJoinedUser({ ...credentials, email: 'recoverer@example.com', role: { id: SEEDED_ROLES.member, name: 'member', permissions: [] } });
      // Access tokens live 2 s here: each enrollment call gets one of its own, just issued (a loaded machine outlived one).
      const fresh = async () => (await short.request('POST', '/v1/auth/signin', { json: credentials })).body.accessToken as string;
      const { secret } = (await short.request('POST', '/v1/me/mfa/totp', { token: await fresh(), json: { password: credentials.password } })).body;
      const confirmed = await short.request('POST', '/v1/me/mfa/totp/confirm', { token: await fresh(), json: { code: oathtoolTotp(secret) } });
      expect(confirmed.status).toBe(200);
      const codes: string[] = confirmed.body.recovery_codes;
      const passwordFirst = async () => {
        await page.fill('#username', credentials.username);
        await page.fill('#password', credentials.password);
        const answered = page.waitForResponse((r) => r.url().endsWith('/v1/auth/signin') && r.request().method() === 'POST');
        await page.click('#sign-in');
        const answer = await answered;
        expect({ status: answer.status(), body: await answer.text() }).toEqual({ status: 401, body: expect.stringContaining('"MFA_REQUIRED"') });
        await outcome(page, 'mfa-required');
      };
      const calls: string[] = [];
      page.on('response', (r) => /\/v1\/auth\/(signout|refresh)$/.test(r.url()) && calls.push(`${new URL(r.url()).pathname} ${r.status()}`));
      await page.goto(`${here}/account/security`);

      // A recovery code is offered beside the app's code, and says how many are left.
      await passwordFirst();
      expect(await page.locator('#recovery-step').isVisible()).toBe(true);
      await page.fill('#recovery-code', codes[0]!);
      await page.click('#send-recovery-code');
      await outcome(page, 'signed-in');
      expect(await page.locator('#status').innerText()).toBe('Signed in with a recovery code: 9 left.');

      // The access token expires. A renewal the service cannot make just now (503) keeps the session and says so.
      await page.waitForTimeout(2_500);
      await page.route('**/v1/auth/refresh', (route) =>
        route.fulfill({ status: 503, contentType: 'application/problem+json', headers: { 'retry-after': '1' }, body: JSON.stringify({ status: 503, code: 'SERVICE_UNAVAILABLE', title: 'Service Unavailable', detail: 'try again' }) }),
      );
      await page.click('#sign-out');
      await outcome(page, 'SERVICE_UNAVAILABLE');
      expect(await page.locator('#account').isVisible()).toBe(true);
      await page.unroute('**/v1/auth/refresh');
      calls.length = 0;
      // Then signing out renews with the page's refresh token, and ends the session on the server.
      await page.click('#sign-out');
      await outcome(page, 'signed-out');
      expect(calls).toEqual(['/v1/auth/signout 401', '/v1/auth/refresh 200', '/v1/auth/signout 204']);

      // Signed in again, then signed out elsewhere (every token of the user ends): the page says so and shows sign-in.
      await passwordFirst();
      await page.fill('#recovery-code', codes[1]!);
      await page.click('#send-recovery-code');
      await outcome(page, 'signed-in');
      const step = (await short.request('POST', '/v1/auth/signin', { json: credentials })).body.mfa_token;
      const elsewhere = (await short.request('POST', '/v1/auth/signin/mfa', { json: { mfa_token: step, recovery_code: codes[2] } })).body.accessToken;
      expect((await short.request('POST', '/v1/auth/signout', { token: elsewhere })).status).toBe(204);
      calls.length = 0;
      await page.click('#sign-out');
      await outcome(page, 'session-ended');
      expect(calls).toEqual(['/v1/auth/signout 401', '/v1/auth/refresh 401']);
      expect(await page.locator('#password-step').isVisible()).toBe(true);
      expect(await page.locator('#account').isVisible()).toBe(false);
    } finally {
      await page.close();
      await short.close();
    }
  });

  it('serves the page under the strict policy: its one script from its own route, nothing inline', async () => {
    const page = await app.request('GET', '/account/security');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.text.match(/<script/g)).toHaveLength(1);
    expect(page.text).toContain('<script src="/account/security.js" defer></script>');
    const script = await fetch(`${app.url}/account/security.js`);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
  });
});
