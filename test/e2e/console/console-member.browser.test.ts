import type { Page } from 'playwright-core';
import { accessibilityViolations, ADMIN, addJoinedUser, type ConsoleRig, type DatabaseKind, screenshot, signInThroughConsole, signOutThroughConsole, startConsoleRig } from '../../support/console-browser';
import { oathtoolTotp } from '../../support/oathtool';

/**
 * The admin console (#25) in Chromium for those who are not admins: a member sees only their own account; a
 * 403 that happens anyway is said in words; a role that requires a second factor enrolls first.
 */
describe.each<DatabaseKind>(['sqlite', 'mariadb'])('the console as a member, on %s', (kind) => {
  let rig: ConsoleRig;
  let token: string;
  const shots = kind === 'sqlite';
  const MEMBER = { username: 'max', email: 'max@example.com', name: 'Max Member', password: 'a long enough passphrase' };
  const VIEWER = { username: 'vera', email: 'vera@example.com', name: 'Vera Viewer', password: 'another long passphrase' };
  const OPERATOR = { username: 'olga', email: 'olga@example.com', name: 'Olga Operator', password: 'yet another long passphrase', role: 'operator' };
  const INVITER = { username: 'ines', email: 'ines@example.com', name: 'Ines Inviter', password: 'an inviter’s long passphrase', role: 'inviter' };
  const HANDLER = { username: 'hal', email: 'hal@example.com', name: 'Hal Handler', password: 'a handler’s long passphrase', role: 'handler' };
  const KEYHOLDER = { username: 'kim', email: 'kim@example.com', name: 'Kim Keyholder', password: 'a passphrase for kim', role: 'operator' };
  let viewerId: string;

  beforeAll(async () => {
    // The admin's role holds users:delete: the admin must enroll a second factor first.
    rig = await startConsoleRig(kind, { MFA_REQUIRED_PERMISSIONS: 'users:delete' });
    // The admin enrolls through the API, and signs in with a code.
    const enrollOnly = await rig.signIn();
    const { secret } = (await rig.request('POST', '/v1/me/mfa/totp', { token: enrollOnly, json: { password: ADMIN.password } })).body;
    expect((await rig.request('POST', '/v1/me/mfa/totp/confirm', { token: enrollOnly, json: { code: oathtoolTotp(secret) } })).status).toBe(200);
    const step = await rig.request('POST', '/v1/auth/signin', { json: { username: ADMIN.username, password: ADMIN.password } });
    token = (await rig.request('POST', '/v1/auth/signin/mfa', { json: { mfa_token: step.body.mfa_token, code: oathtoolTotp(secret, 1) } })).body.accessToken;
    await addJoinedUser(rig, token, MEMBER);
    expect((await rig.request('POST', '/v1/roles', { token, json: { name: 'operator', permissions: ['users:read', 'users:delete'] } })).status).toBe(201);
    await addJoinedUser(rig, token, OPERATOR);
    await addJoinedUser(rig, token, KEYHOLDER);
    expect((await rig.request('POST', '/v1/roles', { token, json: { name: 'viewer', permissions: ['users:read'] } })).status).toBe(201);
    viewerId = await addJoinedUser(rig, token, { ...VIEWER, role: 'viewer' });
    expect((await rig.request('POST', '/v1/roles', { token, json: { name: 'inviter', permissions: ['users:invite'] } })).status).toBe(201);
    await addJoinedUser(rig, token, INVITER);
    expect((await rig.request('POST', '/v1/roles', { token, json: { name: 'handler', permissions: ['users:read', 'users:update', 'users:deactivate', 'users:invite'] } })).status).toBe(201);
    await addJoinedUser(rig, token, HANDLER);
  }, 120_000);
  afterAll(async () => rig?.close());

  async function open(username: string, password: string): Promise<{ page: Page; problems: string[] }> {
    const { page, problems } = await rig.newPage();
    await signInThroughConsole(page, rig.url, username, password);
    return { page, problems };
  }

  it('shows a member only their own account, and says so at an admin screen’s address', async () => {
    const { page, problems } = await open(MEMBER.username, MEMBER.password);
    await page.getByRole('heading', { level: 1, name: 'My account' }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Console' }).getByRole('link').allInnerTexts()).toEqual(['My account']);
    expect(await page.locator('main').innerText()).toContain('member (no permissions)');
    expect(await accessibilityViolations(page)).toEqual([]);
    if (shots) await screenshot(page, 'member-account');
    await page.goto(`${rig.url}/console/users`);
    await page.getByText('Your role does not allow this screen.').waitFor();
    expect(problems).toEqual([]);
  });

  it('says a 403 that happens anyway in words: a viewer whose role lost users:read while the list was open', async () => {
    const { page, problems } = await open(VIEWER.username, VIEWER.password);
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Console' }).getByRole('link').allInnerTexts()).toEqual(['Users', 'My account']);
    expect(await page.locator('main').innerText()).not.toContain('Invite someone');
    expect((await rig.request('PATCH', `/v1/users/${viewerId}`, { token, json: { role: 'member' } })).status).toBe(200);
    await page.getByLabel('Status').selectOption('active');
    await page.getByText('Your role does not allow this.').waitFor();
    expect(problems).toEqual([]);
  });

  it('lets a role with users:invite alone invite from the console, and says why it lists no pending invitations', async () => {
    const { page, problems } = await open(INVITER.username, INVITER.password);
    await page.getByRole('heading', { level: 1, name: 'Invitations' }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Console' }).getByRole('link').allInnerTexts()).toEqual(['Invitations', 'My account']);
    await page.getByText('Listing them takes the users:read permission, which your role does not hold.').waitFor();
    await page.getByLabel('E-mail').fill('newcomer@example.com');
    await page.getByLabel('Name (optional)').fill('New Comer');
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByText('Invitation sent to newcomer@example.com.').waitFor();
    // Nothing asked of the API that the role may not have (a 403 would be said on the page).
    expect(await page.locator('main').innerText()).not.toContain('Your role does not allow this');
    const invitees = (await rig.request('GET', '/v1/users?status=pending&q=newcomer', { token })).body.users;
    expect(invitees.map((user: { email: string; role: { name: string } }) => [user.email, user.role.name])).toEqual([['newcomer@example.com', 'member']]);
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('brings a role that requires a second factor to enrollment first, then to every screen', async () => {
    const { page, problems } = await open(OPERATOR.username, OPERATOR.password);
    await page.getByRole('heading', { level: 1, name: 'Set up a second factor' }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Console' }).count()).toBe(0);
    // Starting asks for the password: a wrong one is said at its field, and nothing starts.
    await page.getByLabel('Your password, to set up an authenticator app').fill('not my password at all');
    await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    expect(await page.locator('#totp-password-error').innerText()).toBe('The password is not right, or too many tries have locked the account for a while.');
    expect(await page.locator('#totp-secret').count()).toBe(0);
    await page.getByLabel('Your password, to set up an authenticator app').fill(OPERATOR.password);
    await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    const secret = await page.locator('#totp-secret').innerText();
    expect(await accessibilityViolations(page)).toEqual([]);
    if (shots) await screenshot(page, 'enrollment');
    await page.getByLabel('The app’s current six-digit code').fill(oathtoolTotp(secret));
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('button', { name: 'I have saved them: continue' }).click();
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    expect(problems).toEqual([]);
  });

  it('lets a role that requires a second factor enroll a passkey instead, then signs in with it', async () => {
    const { page, problems } = await open(KEYHOLDER.username, KEYHOLDER.password);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
    });
    await page.getByRole('heading', { level: 1, name: 'Set up a second factor' }).waitFor();
    await page.getByLabel('Your password, to add a passkey').fill(KEYHOLDER.password);
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByRole('button', { name: 'I have saved them: continue' }).click();
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    await signOutThroughConsole(page);
    await signInThroughConsole(page, rig.url, KEYHOLDER.username, KEYHOLDER.password);
    await page.getByRole('button', { name: 'Use a passkey' }).click();
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    expect(problems).toEqual([]);
  });
  it('offers no action on a user whose role holds permissions the viewer’s does not (the API refuses them all), and every action on one it does', async () => {
    const idOf = async (username: string) =>
      ((await rig.request('GET', `/v1/users?q=${username}`, { token })).body.users as { _id: string; username?: string }[]).find((u) => u.username === username)!._id;
    const [adminId, memberId] = [await idOf(ADMIN.username), await idOf(MEMBER.username)];
    expect((await rig.request('POST', '/v1/users/invite', { token, json: { email: 'pending.admin@example.com', role: 'admin' } })).status).toBe(201);
    const { page, problems } = await open(HANDLER.username, HANDLER.password);
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    await page.goto(`${rig.url}/console/users/${adminId}`);
    await page.getByText(/Their role, admin, holds permissions yours does not \(.*roles:write.*\)/).waitFor();
    const manage = page.locator('section.actions');
    expect(await manage.getByRole('button').count()).toBe(0);
    await page.goto(`${rig.url}/console/users/${memberId}`);
    await manage.getByRole('button', { name: 'Rename' }).waitFor();
    expect(await manage.getByRole('button', { name: 'Deactivate' }).count()).toBe(1);
    // The pending invitations alike: the admin's invitation can be neither resent nor revoked by this role.
    await page.goto(`${rig.url}/console/invitations`);
    const row = page.getByRole('row', { name: /pending\.admin@example\.com/ });
    await row.getByText('Their role holds permissions yours does not').waitFor();
    expect(await row.getByRole('button').count()).toBe(0);
    expect(problems).toEqual([]);
  });

  it('ends a tab left open when someone else signs in in another tab of the browser, rather than act for them', async () => {
    const { page: first, problems } = await open(MEMBER.username, MEMBER.password);
    await first.getByRole('heading', { level: 1, name: 'My account' }).waitFor();
    // Another tab of the same browser: it opens the same session, signs out (ending the member's tokens) and signs in as someone else.
    const second = await first.context().newPage();
    await second.goto(`${rig.url}/console`);
    await second.getByRole('heading', { level: 1, name: 'My account' }).waitFor();
    await second.getByRole('button', { name: 'Sign out' }).click();
    await second.getByLabel('Username').fill(VIEWER.username);
    await second.getByLabel('Password').fill(VIEWER.password);
    await second.getByRole('button', { name: 'Sign in' }).click();
    await second.getByRole('heading', { level: 1, name: 'My account' }).waitFor();
    // The first tab still shows the member; its next call finds its token ended, and the cookie now renews the viewer's session.
    await first.getByLabel('Your password, to set up an authenticator app').fill(MEMBER.password);
    await first.getByRole('button', { name: 'Set up an authenticator app' }).click();
    await first.getByText('You signed in as someone else in another tab').waitFor();
    expect(await first.getByLabel('Username').count()).toBe(1);
    expect(await first.locator('#totp-secret').count()).toBe(0);
    // Nothing was started for the viewer in the member's tab, and the other tab's session goes on.
    const viewer = await rig.signIn(VIEWER.username, VIEWER.password);
    expect((await rig.request('GET', '/v1/me/mfa', { token: viewer })).body.factors).toEqual([]);
    await second.reload();
    await second.getByRole('heading', { level: 1, name: 'My account' }).waitFor();
    expect(await second.locator('main').innerText()).toContain(VIEWER.name);
    expect(problems).toEqual([]);
  });
});
