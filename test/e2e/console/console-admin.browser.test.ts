import { generateKeyPairSync } from 'node:crypto';
import type { Page, Request } from 'playwright-core';
import { accessibilityViolations, ADMIN, addJoinedUser, adminPage, confirmAction, type ConsoleRig, type DatabaseKind, screenshot, signInThroughConsole, signOutThroughConsole, startConsoleRig } from '../../support/console-browser';
import { oathtoolTotp } from '../../support/oathtool';

/**
 * The admin console (#25) in Chromium against the built api, as an admin: roles, service accounts, the audit view
 * and one's own account with its second factor; on SQLite and on MariaDB.
 */
describe.each<DatabaseKind>(['sqlite', 'mariadb'])('the console as an admin, on %s: roles, service accounts, audit, account', (kind) => {
  let rig: ConsoleRig;
  let page: Page;
  let problems: string[];
  let token: string;
  const shots = kind === 'sqlite';
  const PASSWORD = 'a new long passphrase 42';

  beforeAll(async () => {
    rig = await startConsoleRig(kind);
    token = await rig.signIn();
    ({ page, problems } = await adminPage(rig));
  }, 120_000);
  afterAll(async () => rig?.close());
  afterEach(() => expect(problems).toEqual([]));

  const h1 = (name: string) => page.getByRole('heading', { level: 1, name }).waitFor();

  it('creates a role with the permission picker grouped by group, edits it, and explains why a role in use stays (its deletion confirmed)', async () => {
    await page.getByRole('link', { name: 'Roles', exact: true }).click();
    await h1('Roles');
    await page.getByRole('link', { name: 'New role' }).click();
    await h1('New role');
    await page.getByLabel('Name').fill('member');
    await page.getByRole('group', { name: 'users' }).getByLabel('users:read').check();
    await page.getByRole('button', { name: 'Create role' }).click();
    await page.locator('#role-name-error').waitFor();
    expect(await page.locator('#role-name-error').innerText()).toBe('Another role has this name.');
    expect(await accessibilityViolations(page)).toEqual([]);
    if (shots) await screenshot(page, 'role-editor');

    await page.getByLabel('Name').fill('auditor');
    await page.getByRole('group', { name: 'audit' }).getByLabel('audit:read').check();
    await page.getByRole('button', { name: 'Create role' }).click();
    await h1('Role auditor');
    await page.getByRole('group', { name: 'users' }).getByLabel('users:read').uncheck();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();
    const role = (await rig.request('GET', '/v1/roles?page_size=100', { token })).body.roles.find((r: { name: string }) => r.name === 'auditor');
    expect(role.permissions).toEqual(['audit:read']);

    await addJoinedUser(rig, token, { username: 'avery', email: 'avery@example.com', name: 'Avery Auditor', password: 'a long enough passphrase', role: 'auditor' });
    // A click alone deletes nothing: the confirmation opens, and Cancel closes it unsent.
    const deletes: string[] = [];
    const onRequest = (sent: Request) => sent.method() === 'DELETE' && deletes.push(sent.url());
    page.on('request', onRequest);
    await page.getByRole('button', { name: 'Delete auditor' }).click();
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('button', { name: 'Delete auditor' }).waitFor();
    expect(await page.getByRole('form', { name: 'Delete auditor' }).count()).toBe(0);
    expect(deletes).toEqual([]);
    await confirmAction(page, 'Delete auditor', 'auditor');
    await page.getByText('Users or service accounts still hold this role. Give them another role first, then delete it.').waitFor();
    page.off('request', onRequest);
    expect(deletes).toHaveLength(1);
    await page.getByRole('link', { name: 'Back to the roles' }).click();
    await page.getByRole('link', { name: 'auditor' }).waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    if (shots) await screenshot(page, 'roles');
  });

  it('shows the role on screen after a jump back through the history, and saves that role, not the one seen before it', async () => {
    await page.getByRole('link', { name: 'Roles', exact: true }).click();
    await h1('Roles');
    await page.getByRole('link', { name: 'member', exact: true }).click();
    await h1('Role member');
    await page.getByRole('link', { name: 'Back to the roles' }).click();
    await page.getByRole('link', { name: 'auditor', exact: true }).click();
    await h1('Role auditor');
    // Two entries back at once (the back button's menu): member's page, with member's fields.
    await page.evaluate('history.go(-2)');
    await h1('Role member');
    await page.getByRole('button', { name: 'Save' }).waitFor();
    expect(await page.getByLabel('Name').inputValue()).toBe('member');
    expect(await page.getByRole('group', { name: 'audit' }).getByLabel('audit:read').isChecked()).toBe(false);
    const before = (await rig.request('GET', '/v1/roles?page_size=100', { token })).body.roles.find((r: { name: string }) => r.name === 'member');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();
    const after = (await rig.request('GET', '/v1/roles?page_size=100', { token })).body.roles.find((r: { name: string }) => r.name === 'member');
    expect(after.permissions).toEqual(before.permissions);
  });

  it('creates a service account, shows its secret once with a copy button, rotates with overlap, registers a key, disables and deletes it (each confirmed)', async () => {
    await page.getByRole('link', { name: 'Service accounts', exact: true }).click();
    await h1('Service accounts');
    await page.getByLabel('Name').fill('billing-sync');
    await page.getByLabel('Description (optional)').fill('Reads users for billing');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { name: 'Service account created' }).waitFor();
    const secret = await page.locator('#one-time-secret').innerText();
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await page.getByRole('button', { name: 'Copy the secret' }).click();
    await page.getByText('Copied.').waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(secret);
    expect(await accessibilityViolations(page)).toEqual([]);
    if (shots) await screenshot(page, 'service-account-created');

    await page.getByRole('link', { name: 'Open the service account' }).click();
    await h1('Service account billing-sync');
    expect(await page.locator('#one-time-secret').count()).toBe(0);
    await page.getByLabel('New secret works').selectOption({ label: '30 days' });
    await page.getByRole('button', { name: 'Add a secret' }).click();
    await page.getByRole('heading', { name: 'New secret' }).waitFor();
    await page.getByRole('button', { name: 'Delete secret' }).nth(1).waitFor();
    await confirmAction(page, 'Delete secret', 'billing-sync', page.getByRole('button', { name: 'Delete secret' }).first());
    await page.getByText('Secret deleted.').waitFor();
    await page.getByRole('button', { name: 'Delete secret' }).nth(1).waitFor({ state: 'detached' });
    await confirmAction(page, 'Delete secret', 'billing-sync');
    await page.getByText('This is its last credential: add another secret or key first.').waitFor();
    // A later action's outcome replaces the earlier one's: the deletion's notice is gone beside this refusal.
    expect(await page.getByText('Secret deleted.').count()).toBe(0);
    await page.getByRole('form', { name: 'Delete secret' }).getByRole('button', { name: 'Cancel' }).click();

    const jwk = { ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }), kid: 'billing-1', alg: 'ES256', use: 'sig' };
    await page.getByLabel(/Public keys/).fill(JSON.stringify({ keys: [jwk] }));
    await page.getByRole('button', { name: 'Register keys' }).click();
    await page.getByText('1 key registered.').waitFor();
    await page.getByText('billing-1').waitFor();
    // …and the refusal is gone beside the registration's notice.
    expect(await page.getByText('This is its last credential').count()).toBe(0);
    expect(await accessibilityViolations(page)).toEqual([]);
    if (shots) await screenshot(page, 'service-account');

    // The account read again after the change comes late: Delete waits for its new version (an If-Match of the
    // old one would be refused, 412) rather than failing when clicked at once.
    await page.route('**/v1/service-accounts/*', async (route) => {
      if (route.request().method() === 'GET') await new Promise((resolve) => setTimeout(resolve, 1500));
      await route.continue();
    });
    await confirmAction(page, 'Disable', 'billing-sync');
    await page.getByText('Disabled: its tokens are refused from now on.').waitFor();
    const accountPath = new URL(page.url()).pathname.replace('/console', '/v1');
    await page.getByRole('button', { name: 'Delete billing-sync' }).click();
    await page.getByRole('form', { name: 'Delete billing-sync' }).getByRole('button', { name: 'Cancel' }).click();
    expect((await rig.request('GET', accountPath, { token })).status).toBe(200);
    await confirmAction(page, 'Delete billing-sync', 'billing-sync');
    await h1('Service accounts');
    await page.unroute('**/v1/service-accounts/*');
    await page.getByText('No service account yet.').waitFor();
  });

  it('shows a filterable audit timeline, an entry’s detail, and exports it', async () => {
    await page.getByRole('link', { name: 'Audit', exact: true }).click();
    await h1('Audit');
    await page.getByText('service_account.created').first().waitFor();
    await page.getByLabel(/^Action/).fill('role.created');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/action=role.created/);
    // The attempt with a taken name was refused, and recorded as such.
    // Locators, not waitForFunction: the console's CSP refuses the eval that a string predicate needs.
    await page.locator('.timeline > li').nth(1).waitFor();
    expect(await page.locator('.timeline > li').count()).toBe(2);
    expect(await page.locator('.timeline > li.failure').innerText()).toContain('refused (ROLE_NAME_TAKEN)');
    await page.getByLabel('Outcome').selectOption({ label: 'Done' });
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.locator('.timeline > li').nth(1).waitFor({ state: 'detached' });
    await page.locator('.timeline > li').first().waitFor();
    expect(await page.locator('.timeline > li').count()).toBe(1);
    await page.locator('.timeline summary').first().click();
    await page.getByText('Request id').waitFor();
    expect(await page.locator('.timeline').innerText()).toContain('name: null → "auditor"');
    expect(await accessibilityViolations(page)).toEqual([]);
    if (shots) await screenshot(page, 'audit');

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export (NDJSON)' }).click();
    const file = await download;
    const lines = (await (await file.createReadStream()).toArray()).join('').trim().split('\n');
    expect(lines.map((line) => JSON.parse(line).action)).toEqual(['role.created']);

    // A user by username rather than id, and a day as people write it; a day the calendar has not is said at its field.
    await page.getByLabel(/^Actor/).fill(ADMIN.username);
    await page.getByLabel(/^From/).fill('2026-02-30');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('Not a date and time. Write a day, 2026-01-31').waitFor();
    expect(new URL(page.url()).searchParams.get('actor')).toBeNull();
    await page.getByLabel(/^From/).fill('2026-01-31');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/actor=[0-9a-f-]{36}/);
    const [me] = (await rig.request('GET', `/v1/users?q=${ADMIN.username}`, { token })).body.users.filter((u: { username?: string }) => u.username === ADMIN.username);
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toMatchObject({ actor: me._id, from: '2026-01-31T00:00:00.000Z' });
    await page.locator('.timeline > li').first().waitFor();
  });

  it('says an address the console has no page for is not found, with a link to Users; /console/service-accounts/new is the create form', async () => {
    for (const path of ['/console/nothing-here', '/console/users/someone/more', '/console/account/extra']) {
      await page.goto(`${rig.url}${path}`);
      await h1('Page not found');
      expect(new URL(page.url()).pathname).toBe(path);
    }
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.getByRole('main').getByRole('link', { name: 'Users', exact: true }).click();
    await h1('Users');

    // Accounts are created on the list: "new" opens it with the create form's first field focused.
    await page.goto(`${rig.url}/console/service-accounts/new`);
    await h1('Service accounts');
    await page.locator('#sa-name:focus').waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/service-accounts');
  });

  it('changes the password (a wrong current one said at its field), sets up TOTP with its QR code and recovery codes, then signs in with a code', async () => {
    await page.getByRole('link', { name: 'My account', exact: true }).click();
    await h1('My account');
    await page.getByLabel('Current password').fill('not my password at all');
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    expect(await page.locator('#current_password-error').innerText()).toBe('The password is not right, or too many tries have locked the account for a while.');
    await page.getByLabel('Current password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Password changed. Every other session of yours has been signed out.').waitFor();
    expect((await rig.request('GET', '/v1/me', { token })).status).toBe(401);
    await page.reload();
    await h1('My account');

    await page.getByLabel('Your password, to set up an authenticator app').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    const qr = page.getByRole('img', { name: /QR code/ });
    await qr.waitFor();
    expect(await qr.getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    const secret = await page.locator('#totp-secret').innerText();
    await page.getByLabel('The app’s current six-digit code').fill('000000' === oathtoolTotp(secret) ? '111111' : '000000');
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.locator('#totp-code-error').waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    if (shots) await screenshot(page, 'totp-setup');
    await page.getByLabel('The app’s current six-digit code').fill(oathtoolTotp(secret));
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('heading', { name: 'Recovery codes' }).waitFor();
    const first = await page.locator('.codes code').allInnerTexts();
    expect(first).toHaveLength(10);
    if (shots) await screenshot(page, 'account');
    await page.getByRole('button', { name: 'I have saved them' }).click();
    await page.getByText(/Authenticator app set up on/).waitFor();
    // New recovery codes take the password or a current code: a wrong code is said at its field.
    const proof = page.getByLabel('Your password or the app’s current code, to make new recovery codes');
    await proof.fill('000000' === oathtoolTotp(secret) ? '111111' : '000000');
    await page.getByRole('button', { name: 'New recovery codes' }).click();
    expect(await page.locator('#recovery-codes-proof-error').innerText()).toContain('That code is not right.');
    await proof.fill(PASSWORD);
    await page.getByRole('button', { name: 'New recovery codes' }).click();
    await page.getByRole('heading', { name: 'Recovery codes' }).waitFor();
    const codes = await page.locator('.codes code').allInnerTexts();
    expect(codes).toHaveLength(10);
    expect(codes).not.toContain(first[0]);
    await page.getByRole('button', { name: 'I have saved them' }).click();

    await signOutThroughConsole(page);
    await signInThroughConsole(page, rig.url, ADMIN.username, PASSWORD);
    await page.getByRole('heading', { name: 'Second factor' }).waitFor();
    await page.getByLabel('Code from your authenticator app').fill('000000' === oathtoolTotp(secret, 1) ? '111111' : '000000');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.locator('#code-error').waitFor();
    expect(await page.locator('#code-error').innerText()).toContain('That code is not right, or the password before it was not.');
    expect(await accessibilityViolations(page)).toEqual([]);
    if (shots) await screenshot(page, 'sign-in-second-factor');
    await page.getByLabel('Code from your authenticator app').fill(oathtoolTotp(secret, 1));
    await page.getByRole('button', { name: 'Continue' }).click();
    await h1('Users');

    await signOutThroughConsole(page);
    await signInThroughConsole(page, rig.url, ADMIN.username, PASSWORD);
    await page.getByRole('button', { name: 'Use a recovery code instead' }).click();
    await page.getByLabel('Recovery code').fill(codes[0]!);
    await page.getByRole('button', { name: 'Continue' }).click();
    await h1('Users');
  });
});
