import type { Page } from 'playwright-core';
import { ADMIN, addJoinedUser, type ConsoleRig, type DatabaseKind, signInThroughConsole, startConsoleRig } from '../../support/console-browser';

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
});
