import { asValue } from 'awilix';
import { type Browser, type Page, type Request } from 'playwright-core';
import type { Role } from '../../src/domain/roles/role';
import { formatExpiry } from '../../src/application/shared/expiry-wording';
import { SEEDED_ROLES } from '../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { CapturingMailer } from '../support/capturing-mailer';
import { launchChromium } from '../support/headless-chromium';
import { startTestApp, type TestApp } from '../support/test-app';

const member: Role = { id: SEEDED_ROLES.member, name: 'member', permissions: [] };

/** The password-reset page (#10), clicked through in a real headless Chromium, with JavaScript and without. */
describe('the password-reset page in a browser', () => {
  let app: TestApp;
  let browser: Browser;
  const mailer = new CapturingMailer();
  let counter = 0;

  beforeAll(async () => {
    app = await startTestApp({}, { mailer: asValue(mailer) });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  /** A joined user who asked for a reset: its credentials and the mailed link (on the test's port). */
  async function resetLink(): Promise<{ username: string; password: string; link: string; expiresAt: Date }> {
    counter += 1;
    const username = `browser-reset-${counter}`;
    const email = `${username}@example.com`;
    const password = `${username}-old-password`;
    await app.addJoinedUser({ username, password, email, role: member });
    const before = mailer.sent.length;
    expect((await app.request('POST', '/v1/auth/password-reset', { json: { email } })).status).toBe(202);
    await mailer.tokenSentTo(email, before);
    const mail = mailer.lastTo(email);
    // PUBLIC_URL cannot know the test's ephemeral port: keep the link's path and query.
    return { username, password, link: `${app.url}${new URL(mail.link).pathname}${new URL(mail.link).search}`, expiresAt: mail.expiresAt };
  }

  const seen = async (page: Page, selector: string) => ((await page.locator(selector).isVisible()) ? page.locator(selector).innerText() : null);
  const signIn = (username: string, password: string) => app.request('POST', '/v1/auth/signin', { json: { username, password } });

  it('says when the link expires in the words of the mail', async () => {
    const { link, expiresAt } = await resetLink();
    const page = await browser.newPage();
    await page.goto(link);
    expect(await page.locator('#state').getAttribute('data-state')).toBe('valid');
    expect(await page.locator('#expiry time').innerText()).toBe(formatExpiry(expiresAt));
    expect(await page.locator('#expiry time').getAttribute('datetime')).toBe(expiresAt.toISOString());
    await page.close();
  });

  it('with JavaScript: shows a refused password, then sets the new one on the same page; only it signs in', async () => {
    const { username, password, link } = await resetLink();
    const page = await browser.newPage();
    const consoleErrors: string[] = [];
    page.on('console', (message) => message.type() === 'error' && consoleErrors.push(message.text()));
    const posted: Request[] = [];
    page.on('request', (request) => request.method() === 'POST' && posted.push(request));
    await page.goto(link);

    await page.fill('#password', 'short');
    await page.click('#submit');
    await page.waitForSelector('#result[data-outcome="VALIDATION_FAILED"]');
    expect(await seen(page, '#result')).toBe('Password must be 12 to 128 characters long');
    expect(await page.locator('#password').getAttribute('aria-invalid')).toBe('true');

    await page.fill('#password', 'a browser reset passphrase');
    await page.click('#submit');
    await page.waitForSelector('#result[data-outcome="password-set"]');
    expect(await seen(page, '#result')).toBe('Your password is set. Sign in with it; every other session has ended.');
    expect(await seen(page, '#reset')).toBeNull();
    // The page stayed; the script posted the JSON API, the token in the body, never in a URL.
    expect(page.url()).toBe(link);
    expect(posted.map((r) => new URL(r.url()).pathname)).toEqual(['/v1/auth/password-reset/confirm', '/v1/auth/password-reset/confirm']);
    expect(consoleErrors.filter((e) => !/status of 400/.test(e))).toEqual([]);

    expect((await signIn(username, password)).status).toBe(401);
    expect((await signIn(username, 'a browser reset passphrase')).status).toBe(200);
    await page.goto(link);
    expect(await page.locator('#state').getAttribute('data-state')).toBe('used');
    await page.close();
  });

  it('without JavaScript: the form posts itself, a refusal answers the form again (400), then the password is set (200)', async () => {
    const { username, link } = await resetLink();
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    const posted: Request[] = [];
    page.on('request', (request) => request.isNavigationRequest() && request.method() === 'POST' && posted.push(request));
    // Opened with a trailing slash, which the router serves as the link: the form still posts to /password-reset.
    await page.goto(link.replace('/password-reset?', '/password-reset/?'));
    expect(new URL(page.url()).pathname).toBe('/password-reset/');

    await page.fill('#password', 'short');
    const [refused] = await Promise.all([page.waitForNavigation(), page.click('#submit')]);
    expect(refused!.status()).toBe(400);
    expect(await seen(page, '#result')).toBe('Password must be 12 to 128 characters long');
    expect(await page.inputValue('#password')).toBe('');

    await page.fill('#password', 'a scriptless reset passphrase');
    const [set] = await Promise.all([page.waitForNavigation(), page.click('#submit')]);
    expect(set!.status()).toBe(200);
    expect(await page.locator('#result').getAttribute('data-outcome')).toBe('password-set');
    expect(page.url()).toBe(`${app.url}/password-reset`);
    expect(posted.map((r) => new URL(r.url()).pathname + new URL(r.url()).search)).toEqual(['/password-reset', '/password-reset']);
    expect(posted[1]!.postData()).toContain('token=');
    expect((await signIn(username, 'a scriptless reset passphrase')).status).toBe(200);

    // The link is used up: opened again, it says so.
    const [again] = await Promise.all([page.waitForNavigation(), page.goto(link)]);
    expect(again!.status()).toBe(410);
    expect(await page.locator('#state').getAttribute('data-state')).toBe('used');
    await context.close();
  });
});
