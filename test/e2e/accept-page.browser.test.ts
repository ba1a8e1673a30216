import { asValue } from 'awilix';
import { type Browser, type Page, type Request } from 'playwright-core';
import { formatExpiry } from '../../src/application/shared/expiry-wording';
import type { InvitationMail } from '../../src/application/ports/mailer.port';
import { renderInvitationMail } from '../../src/infrastructure/mail/invitation-mail.template';
import { CapturingMailer } from '../support/capturing-mailer';
import { launchChromium } from '../support/headless-chromium';
import { PathStrippingProxy } from '../support/path-stripping-proxy';
import { startTestApp, type TestApp } from '../support/test-app';


/** The invitation page's form, clicked through in a real headless Chromium. */
describe('the invitation page in a browser', () => {
  // The application a person goes to once joined (APP_URL); the browser's requests to it are answered by the test.
  const APP_URL = 'https://app.example.test/home?from=invitation';
  let app: TestApp;
  let appWithoutLink: TestApp;
  let browser: Browser;
  const mailer = new CapturingMailer();

  beforeAll(async () => {
    app = await startTestApp({ APP_URL }, { mailer: asValue(mailer) });
    appWithoutLink = await startTestApp({}, { mailer: asValue(mailer) });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await appWithoutLink?.close();
  });

  async function invite(email: string, on: TestApp = app): Promise<{ link: string; mail: InvitationMail }> {
    const token = await on.signIn();
    expect((await on.request('POST', '/v1/users/invite', { token, json: { email, name: 'Browser User' } })).status).toBe(201);
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const mail = mailer.sent.find((m) => m.to === email);
      // PUBLIC_URL cannot know the test's ephemeral port: keep the link's path and query.
      if (mail) return { link: `${on.url}${new URL(mail.link).pathname}${new URL(mail.link).search}`, mail };
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error('no invitation mail');
  }

  /** What a person sees of an element: its text when shown, null when hidden. */
  const seen = async (page: Page, selector: string) =>
    (await page.locator(selector).isVisible()) ? page.locator(selector).innerText() : null;
  /** How often `text` is on the page as a person sees it (hidden elements do not count). */
  const timesShown = async (page: Page, text: string) => (await page.locator('body').innerText()).split(text).length - 1;
  const fieldState = async (page: Page, field: string) => ({
    invalid: await page.locator(`#${field}`).getAttribute('aria-invalid'),
    describedBy: await page.locator(`#${field}`).getAttribute('aria-describedby'),
  });
  const focused = async (page: Page, field: string) => (await page.locator(`#${field}:focus`).count()) === 1;

  it('says when the link expires in the words of the mail', async () => {
    const { link, mail } = await invite('expiry@example.com');
    const page = await browser.newPage();
    await page.goto(link);

    const words = await page.locator('#expiry time').innerText();
    expect(words).toMatch(/^[A-Z][a-z]+day \d{1,2} [A-Z][a-z]+ \d{4} at \d{2}:\d{2} UTC$/);
    expect(words).toBe(formatExpiry(mail.expiresAt));
    expect(renderInvitationMail(mail).text).toContain(`expires on ${words}.`);
    expect(await page.locator('#expiry time').getAttribute('datetime')).toBe(mail.expiresAt.toISOString());
    expect(await seen(page, '#expiry')).toBe(`This link works once and expires on ${words}.`);
    await page.close();
  });

  it('shows each problem once, next to its field, then joins and links to APP_URL; the new user signs in', async () => {
    const { link } = await invite('browser@example.com');
    const page = await browser.newPage();
    const consoleErrors: string[] = [];
    page.on('console', (message) => message.type() === 'error' && consoleErrors.push(message.text()));
    await page.route('https://app.example.test/**', (route) =>
      route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>The application</title><h1>App</h1>' }),
    );

    await page.goto(link);
    expect(await page.locator('#state').getAttribute('data-state')).toBe('valid');
    expect(await page.inputValue('#name')).toBe('Browser User');
    expect(await seen(page, '#next')).toBeNull();

    // Two fields wrong at once: each says so next to itself, once; the status line repeats neither.
    const usernameProblem = 'Username must be 3 to 64 characters of letters, digits, ".", "_" or "-"';
    const passwordProblem = 'Password must be 12 to 128 characters long';
    await page.fill('#username', 'no spaces here');
    await page.fill('#password', 'short');
    await page.click('#submit');
    await page.waitForSelector('#result[data-outcome="VALIDATION_FAILED"]', { state: 'attached' });
    expect(await seen(page, '#username-error')).toBe(usernameProblem);
    expect(await seen(page, '#password-error')).toBe(passwordProblem);
    expect(await seen(page, '#name-error')).toBeNull();
    expect(await timesShown(page, 'must be 3 to 64 characters')).toBe(1);
    expect(await timesShown(page, 'must be 12 to 128 characters long')).toBe(1);
    expect(await page.textContent('#result')).toBe('');
    expect(await fieldState(page, 'username')).toEqual({ invalid: 'true', describedBy: 'username-error username-hint' });
    expect(await fieldState(page, 'password')).toEqual({ invalid: 'true', describedBy: 'password-error password-hint' });
    expect(await fieldState(page, 'name')).toEqual({ invalid: null, describedBy: null });
    expect(await focused(page, 'username')).toBe(true);

    // The username fixed: its problem goes, the password's stays, and focus moves to it.
    await page.fill('#username', 'browser.user');
    await page.click('#submit');
    await page.waitForSelector('#result[data-outcome="VALIDATION_FAILED"]', { state: 'attached' });
    expect(await seen(page, '#username-error')).toBeNull();
    expect(await fieldState(page, 'username')).toEqual({ invalid: null, describedBy: 'username-hint' });
    expect(await seen(page, '#password-error')).toBe(passwordProblem);
    expect(await timesShown(page, 'must be 12 to 128 characters long')).toBe(1);
    expect(await focused(page, 'password')).toBe(true);

    // A username someone has: said at the username, not as a summary.
    await page.fill('#username', 'admin');
    await page.fill('#password', 'a browser passphrase');
    await page.click('#submit');
    await page.waitForSelector('#result[data-outcome="USERNAME_TAKEN"]', { state: 'attached' });
    expect(await seen(page, '#username-error')).toBe('Username is already taken: choose another one');
    expect(await timesShown(page, 'already taken')).toBe(1);
    expect(await seen(page, '#password-error')).toBeNull();
    expect(await page.textContent('#result')).toBe('');

    await page.fill('#username', 'browser.user');
    await page.click('#submit');
    await page.waitForSelector('#result[data-outcome="joined"]');
    expect(await seen(page, '#result')).toBe('You have joined as browser.user.');
    expect(await seen(page, '#invitation')).toBeNull();
    expect(await seen(page, '#next-step')).toBe('Next: go to the application and sign in with your username and password.');
    expect(await page.locator('#app-link').getAttribute('href')).toBe(APP_URL);
    expect(consoleErrors.filter((e) => !e.includes('Failed to load resource'))).toEqual([]);

    const signIn = await app.request('POST', '/v1/auth/signin', { json: { username: 'browser.user', password: 'a browser passphrase' } });
    expect(signIn.status).toBe(200);

    await page.click('#app-link');
    await page.waitForURL(APP_URL);
    expect(await page.title()).toBe('The application');

    // The link now says it was used.
    await page.goto(link);
    expect(await page.locator('#state').getAttribute('data-state')).toBe('used');
    await page.close();
  });

  it('without APP_URL, says to sign in to the application and links nowhere', async () => {
    const { link } = await invite('no-link@example.com', appWithoutLink);
    const page = await browser.newPage();
    await page.goto(link);
    await page.fill('#username', 'no.link');
    await page.fill('#password', 'a browser passphrase');
    await page.click('#submit');
    await page.waitForSelector('#result[data-outcome="joined"]');

    expect(await seen(page, '#next-step')).toBe(
      'Next: sign in to the application you were invited to, with your username and password. You can close this page.',
    );
    expect(await page.locator('a').count()).toBe(0);
    await page.close();
  });

  it('behind a proxy that strips a path (PUBLIC_URL …/auth), loads its script and joins through the API under that path', async () => {
    const proxy = await PathStrippingProxy.start('/auth');
    const publicUrl = proxy.publicUrl;
    const behind = await startTestApp({ PUBLIC_URL: publicUrl }, { mailer: asValue(mailer) });
    proxy.target = behind.url;
    const page = await browser.newPage();
    try {
      const token = await behind.signIn();
      expect((await behind.request('POST', '/v1/users/invite', { token, json: { email: 'behind.proxy@example.com', name: 'Behind Proxy' } })).status).toBe(201);
      const deadline = Date.now() + 10_000;
      while (!mailer.sent.some((m) => m.to === 'behind.proxy@example.com') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      const link = mailer.sent.find((m) => m.to === 'behind.proxy@example.com')!.link;
      expect(link.startsWith(`${publicUrl}/invitations/accept?token=`)).toBe(true);

      const requests: string[] = [];
      page.on('requestfinished', async (request) => requests.push(`${request.method()} ${new URL(request.url()).pathname} ${(await request.response())?.status()}`));
      await page.goto(link);
      await page.fill('#username', 'behind.proxy');
      await page.fill('#password', 'a secret passphrase');
      await page.click('#submit');
      await page.waitForSelector('#result[data-outcome="joined"]', { state: 'attached' });
      expect(requests).toEqual(
        expect.arrayContaining(['GET /auth/invitations/accept.js 200', 'POST /auth/v1/invitations/accept 200']),
      );
      // Joined by the script, the page stayed: no form post.
      expect(requests.filter((r) => r.startsWith('POST /auth/invitations/accept '))).toEqual([]);
      expect((await behind.request('POST', '/v1/auth/signin', { json: { username: 'behind.proxy', password: 'a secret passphrase' } })).status).toBe(200);
    } finally {
      await page.close();
      await behind.close();
      await proxy.close();
    }
  });

  describe('without JavaScript', () => {
    /** A page in a Chromium context with JavaScript off, and every navigation request it makes. */
    async function scriptless(): Promise<{ page: Page; close: () => Promise<void>; posted: Request[] }> {
      const context = await browser.newContext({ javaScriptEnabled: false });
      const page = await context.newPage();
      const posted: Request[] = [];
      page.on('request', (request) => request.isNavigationRequest() && request.method() === 'POST' && posted.push(request));
      return { page, posted, close: () => context.close() };
    }

    it('joins through the form: the server answers the joined page with the next step, and the new user signs in', async () => {
      const { link } = await invite('no-script@example.com');
      const { page, posted, close } = await scriptless();
      await page.route('https://app.example.test/**', (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<title>The application</title>' }));
      await page.goto(link);
      expect(await page.locator('noscript').count()).toBe(0);
      expect(await page.inputValue('#name')).toBe('Browser User');

      await page.fill('#name', 'No Script');
      await page.fill('#username', 'no.script');
      await page.fill('#password', 'a secret passphrase');
      const [response] = await Promise.all([page.waitForNavigation(), page.click('#submit')]);
      expect(response!.status()).toBe(200);
      expect(response!.headers()['content-type']).toMatch(/^text\/html/);
      // The token went in the body, to a URL without it; the password in neither URL.
      expect(posted.map((r) => new URL(r.url()).pathname + new URL(r.url()).search)).toEqual(['/invitations/accept']);
      expect(page.url()).toBe(`${app.url}/invitations/accept`);
      expect(posted[0]!.postData()).toContain('username=no.script');

      expect(await seen(page, '#result')).toBe('You have joined as no.script.');
      expect(await page.locator('#result').getAttribute('data-outcome')).toBe('joined');
      expect(await seen(page, '#next-step')).toBe('Next: go to the application and sign in with your username and password.');
      expect(await page.locator('#app-link').getAttribute('href')).toBe(APP_URL);
      expect(await page.locator('form').count()).toBe(0);

      const signIn = await app.request('POST', '/v1/auth/signin', { json: { username: 'no.script', password: 'a secret passphrase' } });
      expect(signIn.status).toBe(200);
      await page.goto(link);
      expect(await page.locator('#state').getAttribute('data-state')).toBe('used');
      await close();
    });

    it('joins through the form of the link opened with a trailing slash, which posts to the same place', async () => {
      const { link } = await invite('no-script-slash@example.com');
      const { page, posted, close } = await scriptless();
      await page.goto(link.replace('/invitations/accept?', '/invitations/accept/?'));
      expect(new URL(page.url()).pathname).toBe('/invitations/accept/');
      await page.fill('#username', 'no.script.slash');
      await page.fill('#password', 'a secret passphrase');
      const [response] = await Promise.all([page.waitForNavigation(), page.click('#submit')]);
      expect({ status: response!.status(), posted: posted.map((r) => new URL(r.url()).pathname) }).toEqual({ status: 200, posted: ['/invitations/accept'] });
      expect(await seen(page, '#result')).toBe('You have joined as no.script.slash.');
      await close();
    });

    it('refuses a too-short password with 400, saying so once at the field, keeping name and username, and the invitation unused', async () => {
      const { link } = await invite('short@example.com');
      const { page, close } = await scriptless();
      await page.goto(link);
      await page.fill('#username', 'short.one');
      await page.fill('#password', 'short');
      const [response] = await Promise.all([page.waitForNavigation(), page.click('#submit')]);
      expect(response!.status()).toBe(400);
      expect(response!.headers()['content-type']).toMatch(/^text\/html/);

      expect(await seen(page, '#password-error')).toBe('Password must be 12 to 128 characters long');
      expect(await timesShown(page, 'must be 12 to 128 characters long')).toBe(1);
      expect(await seen(page, '#username-error')).toBeNull();
      expect(await seen(page, '#name-error')).toBeNull();
      expect(await page.textContent('#result')).toBe('');
      expect(await fieldState(page, 'password')).toEqual({ invalid: 'true', describedBy: 'password-error password-hint' });
      expect(await fieldState(page, 'username')).toEqual({ invalid: null, describedBy: 'username-hint' });
      expect(await focused(page, 'password')).toBe(true);
      expect(await page.inputValue('#name')).toBe('Browser User');
      expect(await page.inputValue('#username')).toBe('short.one');
      expect(await page.inputValue('#password')).toBe('');
      expect(await page.content()).not.toContain('value="short"');

      // Nothing was consumed: the link still shows the form, and the form posted again joins.
      expect((await app.request('GET', new URL(link).pathname + new URL(link).search)).status).toBe(200);
      await page.fill('#password', 'a long enough passphrase');
      const [joined] = await Promise.all([page.waitForNavigation(), page.click('#submit')]);
      expect(joined!.status()).toBe(200);
      expect(await seen(page, '#result')).toBe('You have joined as short.one.');
      await close();
    });
  });
});
