import { existsSync } from 'node:fs';
import { asValue } from 'awilix';
import { chromium, type Browser } from 'playwright-core';
import { CapturingMailer } from '../support/capturing-mailer';
import { startTestApp, type TestApp } from '../support/test-app';

const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
  (path): path is string => !!path && existsSync(path),
);

/** The invitation page's form, clicked through in a real headless Chromium. */
describe('the invitation page in a browser', () => {
  let app: TestApp;
  let browser: Browser;
  const mailer = new CapturingMailer();

  beforeAll(async () => {
    if (!CHROMIUM) {
      throw new Error('No Chromium for the browser test: run scripts/ensure-chromium.sh (make test does) or set CHROMIUM_PATH');
    }
    app = await startTestApp({}, { mailer: asValue(mailer) });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  async function invite(email: string): Promise<string> {
    const token = await app.signIn();
    expect((await app.request('POST', '/v1/users/invite', { token, json: { email, name: 'Browser User' } })).status).toBe(201);
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const mail = mailer.sent.find((m) => m.to === email);
      // PUBLIC_URL cannot know the test's ephemeral port: keep the link's path and query.
      if (mail) return `${app.url}${new URL(mail.link).pathname}${new URL(mail.link).search}`;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error('no invitation mail');
  }

  it('shows errors from the API, then joins, and the new user signs in', async () => {
    const link = await invite('browser@example.com');
    const page = await browser.newPage();
    const consoleErrors: string[] = [];
    page.on('console', (message) => message.type() === 'error' && consoleErrors.push(message.text()));

    await page.goto(link);
    expect(await page.locator('#state').getAttribute('data-state')).toBe('valid');
    expect(await page.inputValue('#name')).toBe('Browser User');

    // A password that is too short: the API's problem is shown, nothing is consumed.
    await page.fill('#username', 'browser.user');
    await page.fill('#password', 'short');
    await page.click('#submit');
    await page.waitForSelector('#result[data-outcome="VALIDATION_FAILED"]');
    expect(await page.textContent('#result')).toContain('password');

    await page.fill('#password', 'a browser passphrase');
    await page.click('#submit');
    await page.waitForSelector('#result[data-outcome="joined"]');
    expect(await page.textContent('#result')).toContain('browser.user');
    expect(consoleErrors.filter((e) => !e.includes('400'))).toEqual([]);

    const signIn = await app.request('POST', '/v1/auth/signin', { json: { username: 'browser.user', password: 'a browser passphrase' } });
    expect(signIn.status).toBe(200);

    // Reloading the link now says it was used.
    await page.goto(link);
    expect(await page.locator('#state').getAttribute('data-state')).toBe('used');
    await page.close();
  });
});
