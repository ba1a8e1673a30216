import type { CDPSession, Page } from 'playwright-core';
import { ADMIN, addJoinedUser, type ConsoleRig, startConsoleRig } from '../../support/console-browser';

/** The events by which a pointer acts on an element; a keyboard reaches them only on a native control. */
const POINTER_EVENTS = ['click', 'dblclick', 'mousedown', 'mouseup', 'pointerdown', 'pointerup'];

/**
 * Every element of the page a pointer event acts on, by the listeners Chromium holds (CDP
 * DOMDebugger.getEventListeners: Preact attaches each handler to its own element), with what a keyboard needs
 * to reach and use it: its tag, whether it is a link with an address, its tabindex and whether it is disabled.
 */
async function pointerTargets(cdp: CDPSession): Promise<{ tag: string; href: boolean; tabIndex: number; label: string }[]> {
  const { result } = await cdp.send('Runtime.evaluate', { expression: "Array.from(document.querySelectorAll('body *'))" });
  const { result: items } = await cdp.send('Runtime.getProperties', { objectId: result.objectId!, ownProperties: true });
  const found: { tag: string; href: boolean; tabIndex: number; label: string }[] = [];
  for (const item of items) {
    if (!/^\d+$/.test(item.name) || !item.value?.objectId) continue;
    const { listeners } = await cdp.send('DOMDebugger.getEventListeners', { objectId: item.value.objectId });
    if (!listeners.some((listener) => POINTER_EVENTS.includes(listener.type))) continue;
    const { result: described } = await cdp.send('Runtime.callFunctionOn', {
      objectId: item.value.objectId,
      functionDeclaration:
        'function () { return { tag: this.tagName, href: this.hasAttribute("href"), tabIndex: this.tabIndex, label: (this.getAttribute("aria-label") || this.textContent || "").trim().slice(0, 60) }; }',
      returnByValue: true,
    });
    found.push(described.value as { tag: string; href: boolean; tabIndex: number; label: string });
  }
  return found;
}

/** Not a native control a keyboard focuses and works (Enter, Space), or one taken out of the tab order. */
const unreachable = (target: { tag: string; href: boolean; tabIndex: number }) =>
  !(target.tag === 'BUTTON' || target.tag === 'SUMMARY' || (target.tag === 'A' && target.href) || ['INPUT', 'SELECT', 'TEXTAREA'].includes(target.tag)) ||
  target.tabIndex < 0;

/**
 * The console (#25) used by keyboard alone, on every screen: whatever a pointer can act on is a native control
 * in the tab order (the flows themselves are driven by keyboard in console-users.browser.test.ts, and through
 * these same controls by the other suites). The console's data is the same on either database: SQLite only.
 */
describe('the console, every screen usable by keyboard alone', () => {
  let rig: ConsoleRig;
  let page: Page;
  let cdp: CDPSession;
  let problems: string[];
  const screens: string[] = [];

  beforeAll(async () => {
    rig = await startConsoleRig('sqlite');
    const token = await rig.signIn();
    const member = await addJoinedUser(rig, token, { username: 'keyboard.member', email: 'keyboard.member@example.com', name: 'Kim Keys', password: 'keyboard member password 1' });
    await rig.request('POST', '/v1/users/invite', { token, json: { email: 'keyboard.pending@example.com' } });
    const role = await rig.request('POST', '/v1/roles', { token, json: { name: 'keyboard-role', permissions: ['users:read'] } });
    const account = await rig.request('POST', '/v1/service-accounts', { token, json: { name: 'keyboard-sa', role: 'member' } });
    screens.push(
      '/console/users',
      `/console/users/${encodeURIComponent(member)}`,
      '/console/invitations',
      '/console/roles',
      '/console/roles/new',
      `/console/roles/${encodeURIComponent(role.body._id as string)}`,
      '/console/service-accounts',
      `/console/service-accounts/${encodeURIComponent(account.body._id as string)}`,
      '/console/audit',
      '/console/account',
    );
    ({ page, problems } = await rig.newPage());
    cdp = await page.context().newCDPSession(page);
  }, 120_000);
  afterAll(async () => rig?.close());
  afterEach(() => expect(problems).toEqual([]));

  it('signs in with the keyboard alone: the fields and the button reached by Tab, sent by Enter', async () => {
    await page.goto(`${rig.url}/console`);
    await page.getByLabel('Username').waitFor();
    expect((await pointerTargets(cdp)).filter(unreachable)).toEqual([]);
    await page.getByLabel('Username').focus();
    await page.keyboard.type(ADMIN.username);
    await page.keyboard.press('Tab');
    await page.keyboard.type(ADMIN.password);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
  });

  it('has nothing on any screen that a pointer can act on and a keyboard cannot reach', async () => {
    const found: Record<string, string[]> = {};
    for (const screen of screens) {
      await page.goto(`${rig.url}${screen}`);
      await page.locator('h1').first().waitFor();
      await page.waitForLoadState('networkidle');
      const targets = await pointerTargets(cdp);
      expect(targets.length).toBeGreaterThan(0);
      found[screen] = targets.filter(unreachable).map((t) => `${t.tag} "${t.label}"`);
    }
    expect(found).toEqual(Object.fromEntries(screens.map((screen) => [screen, []])));
  });

  it('reaches a screen’s actions by Tab from its heading: the user page’s rename, role and status actions', async () => {
    await page.goto(`${rig.url}${screens[1]}`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    const reached = new Set<string>();
    for (let i = 0; i < 60; i++) {
      await page.keyboard.press('Tab');
      const focused = await page.evaluate<string>(
        "(() => { const e = document.activeElement; return e ? e.tagName + ' ' + (e.getAttribute('aria-label') || e.textContent || '').trim() : ''; })()",
      );
      reached.add(focused);
    }
    const buttons = await page.evaluate<string[]>(
      "Array.from(document.querySelectorAll('button')).filter((e) => !e.disabled).map((e) => 'BUTTON ' + (e.getAttribute('aria-label') || e.textContent || '').trim())",
    );
    expect(buttons.length).toBeGreaterThan(2);
    expect(buttons.filter((button) => !reached.has(button))).toEqual([]);
  });
});
