import type { Page, Route } from 'playwright-core';
import { accessibilityViolations, ADMIN, addJoinedUser, confirmAction, type ConsoleRig, type DatabaseKind, overflowsSideways, screenshot, signInThroughConsole, startConsoleRig } from '../../support/console-browser';

/**
 * The admin console (#25) in Chromium against the built api, as an admin: sign-in and its session, the users
 * list, a user's page and the invitations; on SQLite (the embedded default) and on MariaDB.
 */
describe.each<DatabaseKind>(['sqlite', 'mariadb'])('the console as an admin, on %s: users and invitations', (kind) => {
  let rig: ConsoleRig;
  let page: Page;
  let problems: string[];
  let token: string;
  const shots = kind === 'sqlite';

  beforeAll(async () => {
    rig = await startConsoleRig(kind);
    token = await rig.signIn();
    // Twelve invitees and a joined user, so the list has two pages of ten.
    for (let n = 1; n <= 12; n++) {
      const invited = await rig.request('POST', '/v1/users/invite', { token, json: { email: `person${String(n).padStart(2, '0')}@example.com`, name: `Person ${n}` } });
      expect(invited.status).toBe(201);
    }
    ({ page, problems } = await rig.newPage());
  }, 120_000);
  afterAll(async () => rig?.close());
  afterEach(() => expect(problems).toEqual([]));

  const main = () => page.locator('main');

  it('refuses a wrong password in words, signs in, and keeps the session over a reload with no token a script can read', async () => {
    await signInThroughConsole(page, rig.url, ADMIN.username, 'not the password at all');
    await page.locator('#sign-in-failure').waitFor();
    expect(await page.locator('#sign-in-failure').innerText()).toContain('The username or password is wrong');
    expect(await accessibilityViolations(page)).toEqual([]);
    if (shots) await screenshot(page, 'sign-in');

    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/users');

    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    const stored = await page.evaluate('({ cookie: document.cookie, local: localStorage.length, session: sessionStorage.length })');
    expect(stored).toEqual({ cookie: '', local: 0, session: 0 });
    const [cookie] = await page.context().cookies();
    expect(cookie).toMatchObject({ name: 'ac_console_session', path: '/v1/auth/console-session', httpOnly: true, sameSite: 'Strict' });
  });

  it('lists users with page sizes, search and filters in the URL; the back button walks them; one request per page', async () => {
    await page.getByRole('cell', { name: /person0[1-9]@example.com/ }).first().waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    if (shots) await screenshot(page, 'users');
    expect(await main().innerText()).toContain('Page 1 of 2 · 13 in all');

    const asked: string[] = [];
    page.on('request', (sent) => sent.url().includes('/v1/users?') && asked.push(sent.url()));
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByText('Page 2 of 2').waitFor();
    expect(new URL(page.url()).search).toBe('?page=2');
    expect(asked).toHaveLength(1);

    await page.getByLabel('Per page').selectOption('25');
    await page.getByText('Page 1 of 1 · 13 in all').waitFor();
    expect(new URL(page.url()).search).toBe('?page_size=25');

    await page.getByLabel('Name, username or e-mail starts with').fill('person1');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('Page 1 of 1 · 3 in all').waitFor();
    expect(new URL(page.url()).searchParams.get('q')).toBe('person1');
    await page.getByLabel('Status').selectOption('active');
    await page.getByText('No user matches these filters.').waitFor();
    if (shots) await screenshot(page, 'users-empty');

    await page.goBack();
    await page.getByText('Page 1 of 1 · 3 in all').waitFor();
    expect(await page.getByLabel('Status').inputValue()).toBe('');
    await page.goBack();
    await page.getByText('Page 1 of 1 · 13 in all').waitFor();
    await page.goto(`${rig.url}/console/users?role=admin`);
    await page.getByText('Page 1 of 1 · 1 in all').waitFor();
    expect(await page.getByLabel('Role').inputValue()).toBe('admin');
  });

  it('goes back from a user’s page to the list as it was: its search, filters and page', async () => {
    const list = '?q=person&status=pending&page=2';
    await page.goto(`${rig.url}/console/users${list}`);
    await page.getByText('Page 2 of 2 · 12 in all').waitFor();
    await page.locator('main tbody a').first().click();
    await page.getByRole('heading', { level: 1, name: /^Person / }).waitFor();
    await page.getByRole('link', { name: 'Back to the users' }).click();
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    expect(new URL(page.url()).search).toBe(list);
    await page.getByText('Page 2 of 2 · 12 in all').waitFor();
    expect(await page.getByLabel('Status').inputValue()).toBe('pending');
  });

  it('shows a user’s page and changes it: rename, role, deactivate, reactivate, reset the second factor, delete, each destructive one confirmed by typing', async () => {
    const memberId = (await rig.request('GET', '/v1/users?q=person02', { token })).body.users[0]._id;
    await page.goto(`${rig.url}/console/users/${memberId}`);
    await page.getByRole('heading', { level: 1, name: 'Person 2' }).waitFor();
    expect(await main().innerText()).toMatch(/Invited\s+\S.* by Ada Admin/);
    expect(await main().innerText()).toMatch(/Invitation link\s+Expires \S/);
    await page.getByRole('button', { name: 'Resend invitation' }).click();
    await page.getByText('A new invitation was sent to person02@example.com').waitFor();

    // A joined user: accept person02's invitation through the API.
    const since = rig.logged();
    expect((await rig.request('POST', `/v1/users/${memberId}/invitation/resend`, { token })).status).toBe(202);
    const link = await rig.invitationToken(since);
    expect((await rig.request('POST', '/v1/invitations/accept', { json: { token: link, name: 'Person 2', username: 'person2', password: 'a long enough passphrase' } })).status).toBe(200);
    await page.reload();
    await page.getByText('Active', { exact: true }).waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);

    await page.getByLabel('Name', { exact: true }).fill('Person Two');
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByRole('heading', { level: 1, name: 'Person Two' }).waitFor();

    await page.getByLabel(/^Role/).selectOption({ label: 'admin' });
    await page.getByRole('button', { name: 'Change role' }).click();
    await page.getByText('Role changed to admin.').waitFor();

    await confirmAction(page, 'Deactivate', 'person2');
    await page.getByText('Deactivated', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Reactivate' }).click();
    await page.getByText('Active', { exact: true }).waitFor();

    await confirmAction(page, 'Reset second factor', 'PERSON02@example.com');
    await page.getByText('No second factor is set up.').waitFor();
    await page.getByRole('button', { name: 'Cancel' }).click();

    expect(await main().innerText()).toContain('user.role_changed');
    if (shots) await screenshot(page, 'user');

    const remove = page.getByRole('button', { name: 'Delete Person Two' });
    expect(await remove.isDisabled()).toBe(true);
    await page.getByLabel(/to confirm/).fill('someone else');
    expect(await remove.isDisabled()).toBe(true);
    await page.getByLabel(/to confirm/).fill('person2');
    await remove.click();
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    expect((await rig.request('GET', `/v1/users/${memberId}`, { token })).status).toBe(404);
  });

  it('shows the user on screen after a jump back through the history: never the fields of the page seen before it', async () => {
    const a = await addJoinedUser(rig, token, { username: 'jumpa', email: 'jumpa@example.com', name: 'Jump A', password: 'a long enough passphrase' });
    const b = await addJoinedUser(rig, token, { username: 'jumpb', email: 'jumpb@example.com', name: 'Jump B', password: 'a long enough passphrase', role: 'admin' });
    await page.goto(`${rig.url}/console/users/${a}`);
    await page.getByRole('heading', { level: 1, name: 'Jump A' }).waitFor();
    // To Jump B's page within the console, as its links go (History API), then back.
    await page.evaluate(`history.pushState(null, '', '/console/users/${b}'); window.dispatchEvent(new Event('console:navigated'))`);
    await page.getByRole('heading', { level: 1, name: 'Jump B' }).waitFor();
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('Jump B');
    await page.goBack();
    await page.getByRole('heading', { level: 1, name: 'Jump A' }).waitFor();
    await page.getByRole('button', { name: 'Rename' }).waitFor();
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('Jump A');
    expect(await page.getByLabel(/^Role/).locator('option:checked').innerText()).toBe('member');
    expect(await page.getByRole('button', { name: 'Change role' }).isDisabled()).toBe(true);
  });

  it('goes from a page past the end to the last page with Previous, not to another empty one', async () => {
    await page.goto(`${rig.url}/console/users?page=99`);
    await page.getByText(/^Page 99 of \d+/).waitFor();
    const last = Number(/Page 99 of (\d+)/.exec(await main().innerText())![1]);
    await page.getByRole('button', { name: 'Previous page' }).click();
    await page.getByText(`Page ${last} of ${last}`).waitFor();
    expect(new URL(page.url()).searchParams.get('page')).toBe(String(last));
  });

  it('invites by e-mail with a name and a role, says a taken address at its field, resends and revokes pending invitations', async () => {
    await page.getByRole('link', { name: 'Invitations', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Invitations' }).waitFor();
    await page.getByLabel('E-mail').fill('person01@example.com');
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.locator('#email-error').waitFor();
    expect(await page.locator('#email-error').innerText()).toContain('Someone already has this e-mail address');
    expect(await page.getByLabel('E-mail').getAttribute('aria-invalid')).toBe('true');

    await page.getByLabel('E-mail').fill('grace@example.com');
    await page.getByLabel('Name (optional)').fill('Grace Hopper');
    await page.getByLabel('Role').selectOption({ label: 'admin' });
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByText('Invitation sent to grace@example.com.').waitFor();
    await page.getByRole('link', { name: 'Grace Hopper' }).waitFor();
    // Each pending row says when its link expires, once the mailer has sent it.
    const graceRow = page.getByRole('row', { name: /Grace Hopper/ });
    await graceRow.getByText(/^Expires/).waitFor();
    const expires = Date.parse((await graceRow.locator('time').last().getAttribute('datetime'))!);
    expect(expires - Date.now()).toBeGreaterThan(6 * 86_400_000);
    expect(await accessibilityViolations(page)).toEqual([]);
    if (shots) await screenshot(page, 'invitations');

    // A resend reads that row's user again (its new link's expiry), not every row's.
    const graceId = (await rig.request('GET', '/v1/users?q=grace', { token })).body.users[0]._id as string;
    const userReads: string[] = [];
    const onRequest = (sent: { method(): string; url(): string }) => {
      const read = /\/v1\/users\/([^/?]+)$/.exec(new URL(sent.url()).pathname);
      if (sent.method() === 'GET' && read) userReads.push(decodeURIComponent(read[1]!));
    };
    page.on('request', onRequest);
    await page.getByRole('button', { name: 'Resend the invitation to grace@example.com' }).click();
    await page.getByText('A new invitation was sent to grace@example.com').waitFor();
    await graceRow.getByText(/^Expires/).waitFor();
    await page.waitForLoadState('networkidle');
    page.off('request', onRequest);
    expect(userReads.length).toBeGreaterThan(0);
    expect(new Set(userReads)).toEqual(new Set([graceId]));
    await confirmAction(page, 'Revoke the invitation of grace@example.com', 'grace@example.com');
    await page.getByText('The invitation of grace@example.com is revoked.').waitFor();
    await page.getByRole('link', { name: 'Grace Hopper' }).waitFor({ state: 'detached' });
  });

  it('is usable at 320 px and at 1440 px wide: nothing scrolls sideways but the tables', async () => {
    for (const width of [320, 1440]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${rig.url}/console/users`);
      await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
      await page.getByRole('cell', { name: /person01@example.com/ }).waitFor();
      expect(await overflowsSideways(page)).toBe(false);
      expect(await accessibilityViolations(page)).toEqual([]);
      if (shots) await screenshot(page, `users-${width}`);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('keeps the users table and the role filter within a 1280 px window, whatever a name’s length: long words wrap', async () => {
    const longName = `W${'x'.repeat(199)}`;
    const longRole = `r${'m'.repeat(63)}`;
    expect((await rig.request('POST', '/v1/roles', { token, json: { name: longRole, permissions: [] } })).status).toBe(201);
    expect((await rig.request('POST', '/v1/users/invite', { token, json: { email: 'long@example.com', name: longName, role: longRole } })).status).toBe(201);
    await page.goto(`${rig.url}/console/users?q=Wxxx`);
    await page.getByRole('cell', { name: 'long@example.com' }).waitFor();
    // The table fits its region: nothing of it is scrolled out of sight, the name wrapping over lines instead.
    const region = (await page.locator('main .table-wrap').boundingBox())!;
    const table = (await page.locator('main table').boundingBox())!;
    expect(table.width).toBeLessThanOrEqual(region.width);
    expect((await page.getByLabel('Role', { exact: true }).boundingBox())!.width).toBeLessThanOrEqual(320);
    expect(await overflowsSideways(page)).toBe(false);
  });

  it('shows a 503 and a lost network in words with a retry, never a blank screen', async () => {
    await page.route('**/v1/users?*', (route) =>
      route.fulfill({ status: 503, contentType: 'application/problem+json', headers: { 'retry-after': '3' }, body: JSON.stringify({ type: 'about:blank', title: 'Service unavailable', status: 503, detail: 'database away', code: 'SERVICE_UNAVAILABLE' }) }),
    );
    await page.goto(`${rig.url}/console/users`);
    await page.getByText('The service is unavailable for a moment. Try again in 3 seconds.').waitFor();
    if (shots) await screenshot(page, 'unavailable');
    await page.unroute('**/v1/users?*');
    await page.route('**/v1/users?*', (route) => route.abort('internetdisconnected'));
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.getByText('The service cannot be reached. Check the connection, then try again.').waitFor();
    await page.unroute('**/v1/users?*');
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.getByRole('cell', { name: /person01@example.com/ }).waitFor();
  });

  it('is keyboard usable: the skip link, the navigation and a filter reached and used with the keyboard alone', async () => {
    await page.goto(`${rig.url}/console/users`);
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Skip to the content');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Users');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Invitations' }).waitFor();
    await page.locator('#screen-title:focus').waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.id')).toBe('email');
  });

  it('invites with the keyboard alone', async () => {
    await page.goto(`${rig.url}/console/invitations`);
    await page.getByRole('heading', { level: 1, name: 'Invitations' }).waitFor();
    await page.getByLabel('E-mail').focus();
    await page.keyboard.type('keys@example.com');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Kay Board');
    await page.keyboard.press('Enter');
    await page.getByText('Invitation sent to keys@example.com.').waitFor();
    await page.getByRole('link', { name: 'Kay Board' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Kay Board' }).waitFor();
  });

  it('says a renewal refused for now (429, then 503) in words with a retry of it, not a sign-in: the session has not ended', async () => {
    const refresh = '**/v1/auth/console-session/refresh';
    const refuse = (status: number, code: string, retryAfter?: string) => (route: Route) =>
      route.fulfill({ status, contentType: 'application/problem+json', headers: retryAfter ? { 'retry-after': retryAfter } : {}, body: JSON.stringify({ type: 'about:blank', title: code, status, code }) });
    await page.route(refresh, refuse(429, 'TOO_MANY_REQUESTS', '7'));
    await page.goto(`${rig.url}/console/users`);
    await page.getByText('The console could not renew your session. Too many requests for now. Try again in 7 seconds.').waitFor();
    expect(await page.getByLabel('Username').count()).toBe(0);
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.unroute(refresh);

    await page.route(refresh, refuse(503, 'SERVICE_UNAVAILABLE'));
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.getByText('The service is unavailable for a moment. Try again shortly.').waitFor();
    expect(await page.getByLabel('Username').count()).toBe(0);
    await page.unroute(refresh);

    // The cookie was never refused: the retry renews it, and the screen asked for opens.
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.getByText('Page 1 of 2').waitFor();
  });

  it('goes back to sign-in, in words, when the session ends elsewhere (a 401 the renewal cannot mend)', async () => {
    await page.goto(`${rig.url}/console/users`);
    await page.getByText('Page 1 of 2').waitFor();
    // Signed out on another device: every token of the admin ends, the console's cookie included.
    expect((await rig.request('POST', '/v1/auth/signout', { token: await rig.signIn() })).status).toBe(204);
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByText('Your session has ended. Sign in again.').waitFor();
    await page.getByLabel('Username').fill(ADMIN.username);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    token = await rig.signIn();
  });

  it('signs out on the server: a reload shows the sign-in, and the session cookie no longer works', async () => {
    // Offline, the console stays signed in and says so: ending it only here would leave the cookie for a reload.
    await page.route('**/v1/auth/console-session', (route) => route.abort('internetdisconnected'));
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('The service cannot be reached. Check the connection, then try again.').waitFor();
    await page.unroute('**/v1/auth/console-session');
    // What the session calls answered from here on (the renewal, the sign-out, the reload): said when the reload shows anything but the sign-in.
    const answers: string[] = [];
    page.on('response', (response) => {
      if (response.url().includes('/v1/')) answers.push(`${response.request().method()} ${new URL(response.url()).pathname} ${response.status()}`);
    });
    page.on('requestfailed', (request) => answers.push(`${request.method()} ${new URL(request.url()).pathname} failed: ${request.failure()?.errorText}`));
    // An access token refused when signing out (expired, say) while the cookie still renews: the console renews
    // and ends the session with the new token, rather than only here (a reload would then sign in again).
    let refused = 0;
    await page.route('**/v1/auth/console-session', (route) =>
      route.request().method() === 'DELETE' && refused++ === 0
        ? route.fulfill({ status: 401, contentType: 'application/problem+json', body: JSON.stringify({ type: 'about:blank', title: 'Authentication required', status: 401, code: 'UNAUTHENTICATED', detail: 'The access token has expired' }) })
        : route.continue(),
    );
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(refused).toBe(2);
    await page.unroute('**/v1/auth/console-session');
    await page.reload();
    await page
      .getByRole('heading', { name: 'Sign in' })
      .waitFor()
      .catch(async (error: Error) => {
        throw new Error(`${error.message}\nthe page shows: ${(await page.locator('body').innerText()).slice(0, 500)}\nthe API's answers since the second sign-out: ${answers.join('; ')}`);
      });
    expect((await rig.request('GET', '/v1/me', { token })).status).toBe(401);
  });
});
