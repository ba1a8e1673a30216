import type { CDPSession, Page } from 'playwright-core';
import { accessibilityViolations, ADMIN, type ConsoleRig, type DatabaseKind, screenshot, signInThroughConsole, signOutThroughConsole, startConsoleRig } from '../../support/console-browser';

/**
 * Passkeys in the admin console (#25 with #24's WebAuthn API), in Chromium with a virtual authenticator (the
 * DevTools protocol's WebAuthn domain): added on one's account, used at the sign-in's second step, renamed, removed.
 */
describe.each<DatabaseKind>(['sqlite', 'mariadb'])('passkeys in the console, on %s', (kind) => {
  let rig: ConsoleRig;
  let page: Page;
  let problems: string[];
  let cdp: CDPSession;
  let authenticatorId: string;
  const shots = kind === 'sqlite';

  beforeAll(async () => {
    rig = await startConsoleRig(kind);
    ({ page, problems } = await rig.newPage());
    cdp = await page.context().newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    ({ authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
    }));
    await signInThroughConsole(page, rig.url, ADMIN.username, ADMIN.password);
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
  }, 120_000);
  afterAll(async () => rig?.close());
  afterEach(() => expect(problems).toEqual([]));

  it('adds a passkey on the account page on the password (a wrong one said at its field), with the recovery codes of a first factor shown once', async () => {
    await page.getByRole('link', { name: 'My account', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'My account' }).waitFor();
    await page.getByLabel('Name of the new passkey (optional)').fill('Laptop');
    await page.getByLabel('Your password, to add a passkey').fill('not the password at all');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.locator('#passkey-proof-error').getByText('The password is not right, or too many tries have locked the account for a while.').waitFor();
    expect((await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials).toEqual([]);
    await page.getByLabel('Your password, to add a passkey').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByText('Passkey “Laptop” added: it signs you in as a second factor.').waitFor();
    expect(await page.locator('.codes code').count()).toBe(10);
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials.map((c) => c.rpId)).toEqual(['localhost']);
    expect(await accessibilityViolations(page)).toEqual([]);
    if (shots) await screenshot(page, 'passkeys');
  });

  it('signs in with the passkey at the second step, and the passkey is then shown as used', async () => {
    await signOutThroughConsole(page);
    await signInThroughConsole(page, rig.url, ADMIN.username, ADMIN.password);
    await page.getByRole('heading', { name: 'Second factor' }).waitFor();
    await page.getByRole('button', { name: 'Use a passkey' }).click();
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    await page.getByRole('link', { name: 'My account', exact: true }).click();
    await page.getByText(/last used/).waitFor();
  });

  it('renames the passkey, and removes it with the password (a wrong one said at its field)', async () => {
    await page.getByRole('link', { name: 'My account', exact: true }).click();
    await page.getByLabel('New name for Laptop').fill('Work laptop');
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByText('Renamed to “Work laptop”.').waitFor();
    await page.getByLabel('Your password, to remove Work laptop').fill('not the password at all');
    await page.getByRole('button', { name: 'Remove' }).click();
    await page.getByText('The password is not right, or too many tries have locked the account for a while.').waitFor();
    await page.getByLabel('Your password, to remove Work laptop').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Remove' }).click();
    await page.getByText('Passkey “Work laptop” removed.').waitFor();
    await page.getByText('No passkey yet.').waitFor();
  });
});
