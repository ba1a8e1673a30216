import type { Page } from 'playwright-core';
import { accessibilityViolations, ADMIN, addJoinedUser, type ConsoleRig, type DatabaseKind, signInThroughConsole, startConsoleRig } from '../../support/console-browser';

/**
 * The admin console (#25) in Chromium against the built api, as an admin, with more roles and service accounts than
 * the API's largest page (100): the lists page through them and every role picker offers every role; on SQLite
 * and on MariaDB.
 */
describe.each<DatabaseKind>(['sqlite', 'mariadb'])('the console as an admin, on %s: lists longer than a page', (kind) => {
  // With admin and member, 107 roles by name: team-099 is the 101st, team-105 the last.
  const ROLES = 105;
  const ACCOUNTS = 101;
  let rig: ConsoleRig;
  let page: Page;
  let problems: string[];
  let caseyId: string;

  beforeAll(async () => {
    rig = await startConsoleRig(kind);
    const token = await rig.signIn();
    const named = (prefix: string, count: number) => Array.from({ length: count }, (_, n) => `${prefix}-${String(n + 1).padStart(3, '0')}`);
    const create = async (path: string, names: string[], body: object) => {
      const answers = await Promise.all(names.map((name) => rig.request('POST', path, { token, json: { name, ...body } })));
      expect(answers.map((answer) => answer.status)).toEqual(names.map(() => 201));
    };
    await create('/v1/roles', named('team', ROLES), { permissions: [] });
    // Oldest first: robot-101, created after the others, is past the first 100.
    const robots = named('robot', ACCOUNTS);
    await create('/v1/service-accounts', robots.slice(0, -1), { role: 'member' });
    await create('/v1/service-accounts', robots.slice(-1), { role: 'member' });
    caseyId = await addJoinedUser(rig, token, { username: 'casey', email: 'casey@example.com', name: 'Casey Member', password: 'a long enough passphrase' });
    ({ page, problems } = await rig.newPage());
    await signInThroughConsole(page, rig.url, ADMIN.username, ADMIN.password);
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
  }, 120_000);
  afterAll(async () => rig?.close());
  afterEach(() => expect(problems).toEqual([]));

  const h1 = (name: string) => page.getByRole('heading', { level: 1, name }).waitFor();
  /** A picker's option, present once the picker has every role (options are attached, never visible). */
  const option = (picker: string, label: string) => page.locator(`${picker} option`, { hasText: label }).waitFor({ state: 'attached' });

  it('pages through the roles with one request per page, and opens a role past the 100th', async () => {
    await page.getByRole('link', { name: 'Roles', exact: true }).click();
    await h1('Roles');
    await page.getByText('Page 1 of 11 · 107 in all').waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);

    const asked: string[] = [];
    page.on('request', (sent) => sent.url().includes('/v1/roles?') && asked.push(sent.url()));
    await page.getByLabel('Per page').selectOption('100');
    await page.getByText('Page 1 of 2 · 107 in all').waitFor();
    expect(new URL(page.url()).search).toBe('?page_size=100');
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByText('Page 2 of 2').waitFor();
    expect(new URL(page.url()).search).toBe('?page_size=100&page=2');
    expect(asked).toHaveLength(2);
    await page.getByRole('link', { name: 'team-099', exact: true }).waitFor();
    await page.getByRole('link', { name: 'team-105', exact: true }).click();
    await h1('Role team-105');
  });

  it('offers every role in each picker: the users filter, an invitation, a user’s change of role, a new service account', async () => {
    await page.getByRole('link', { name: 'Users', exact: true }).click();
    await h1('Users');
    await option('#users-role', 'team-105');
    expect(await page.locator('#users-role option').count()).toBe(1 + 107);
    await page.getByLabel('Role', { exact: true }).selectOption({ label: 'team-105' });
    await page.getByText('No user matches these filters.').waitFor();
    expect(new URL(page.url()).searchParams.get('role')).toBe('team-105');

    await page.getByRole('link', { name: 'Invitations', exact: true }).click();
    await h1('Invitations');
    await option('#role', 'team-105');
    // member is the blank choice, not listed again.
    expect(await page.locator('#role option').count()).toBe(1 + 106);

    await page.goto(`${rig.url}/console/users/${caseyId}`);
    await h1('Casey Member');
    await option('#user-role', 'team-105');
    await page.getByLabel('Role (only roles whose permissions you hold)').selectOption({ label: 'team-105' });
    await page.getByRole('button', { name: 'Change role' }).click();
    await page.getByText('Role changed to team-105.').waitFor();

    await page.getByRole('link', { name: 'Service accounts', exact: true }).click();
    await h1('Service accounts');
    await option('#sa-role', 'team-105');
  });

  it('pages through the service accounts, and shows one just created on the last page, where the newest are', async () => {
    await page.goto(`${rig.url}/console/service-accounts`);
    await h1('Service accounts');
    await page.getByText('Page 1 of 11 · 101 in all').waitFor();
    await page.getByLabel('Per page').selectOption('100');
    await page.getByText('Page 1 of 2 · 101 in all').waitFor();
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByRole('link', { name: 'robot-101', exact: true }).waitFor();

    await page.getByRole('button', { name: 'Previous page' }).click();
    await page.getByText('Page 1 of 2').waitFor();
    await page.getByLabel('Name', { exact: true }).fill('robot-newest');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { name: 'Service account created' }).waitFor();
    await page.getByText('Page 2 of 2 · 102 in all').waitFor();
    await page.getByRole('link', { name: 'robot-newest', exact: true }).click();
    await h1('Service account robot-newest');
  });
});
