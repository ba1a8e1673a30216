import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { type ApiProcess, ensureBuilt, startApiProcess } from './api-process';
import { launchChromium } from './headless-chromium';
import { createTestDatabase, serverUrl, SQLITE_SERVER, type TestDatabase } from './test-database';

const ROOT = path.resolve(__dirname, '../..');
export const CONSOLE_SCREENSHOTS = path.join(ROOT, 'docs', 'console');
export const ADMIN = { username: 'admin', password: 'admin-password-123', email: 'admin@example.com', name: 'Ada Admin' };
export type DatabaseKind = 'sqlite' | 'mariadb';

/** The built api on a database of its own (a SQLite file, or one on the integration project's MariaDB), and a Chromium. */
export interface ConsoleRig {
  api: ApiProcess;
  url: string;
  browser: Browser;
  database: TestDatabase;
  /** A page in a context of its own (its own cookies), watched for CSP violations, page errors and requests leaving the origin. */
  newPage(viewport?: { width: number; height: number }): Promise<{ page: Page; context: BrowserContext; problems: string[] }>;
  /** Calls the API as a client would (a token from a sign-in of its own). */
  request(method: string, target: string, options?: { token?: string; json?: unknown }): Promise<{ status: number; body: any; headers: Headers }>; // eslint-disable-line @typescript-eslint/no-explicit-any
  signIn(username?: string, password?: string): Promise<string>;
  /** How much the api has logged so far: invitationToken's `since`. */
  logged(): number;
  /** The first invitation link's token the embedded mailer logged after `since`. */
  invitationToken(since: number): Promise<string>;
  close(): Promise<void>;
}

export async function startConsoleRig(kind: DatabaseKind, env: Record<string, string> = {}): Promise<ConsoleRig> {
  ensureBuilt();
  const database = await createTestDatabase('ac_console', kind === 'sqlite' ? SQLITE_SERVER : serverUrl());
  const api = await startApiProcess(`console-${kind}`, {
    DATABASE_URL: database.url,
    ADMIN_USERNAME: ADMIN.username,
    ADMIN_PASSWORD: ADMIN.password,
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_NAME: ADMIN.name,
    ADDRESS_RATE_LIMIT: '0',
    INVITE_RATE_LIMIT: '0',
    LOG_LEVEL: 'info',
    ...env,
  });
  // localhost, as PUBLIC_URL names it by default: a secure context, and the passkeys' relying party.
  const url = `http://localhost:${api.port}`;
  const browser = await launchChromium();

  const request: ConsoleRig['request'] = async (method, target, options = {}) => {
    const headers: Record<string, string> = {};
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.json !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${url}${target}`, { method, headers, body: options.json === undefined ? undefined : JSON.stringify(options.json) });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
  };

  return {
    api,
    url,
    browser,
    database,
    request,
    async newPage(viewport = { width: 1280, height: 800 }) {
      const context = await browser.newContext({ viewport, permissions: ['clipboard-read', 'clipboard-write'] });
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      page.on('console', (message) => {
        if (/Content Security Policy|Refused to/.test(message.text())) problems.push(`CSP: ${message.text()}`);
      });
      page.on('request', (sent) => {
        if (!/^(data:|blob:)/.test(sent.url()) && !sent.url().startsWith(`${url}/`)) problems.push(`left the origin: ${sent.url()}`);
      });
      return { page, context, problems };
    },
    async signIn(username = ADMIN.username, password = ADMIN.password) {
      const answer = await request('POST', '/v1/auth/signin', { json: { username, password } });
      if (answer.status !== 200) throw new Error(`sign-in as ${username}: ${answer.status} ${JSON.stringify(answer.body)}`);
      return answer.body.accessToken as string;
    },
    logged: () => api.output.join('').length,
    async invitationToken(since: number) {
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline) {
        const token = /invitations\/accept\?token=([A-Za-z0-9_-]+)/.exec(api.output.join('').slice(since))?.[1];
        if (token) return token;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error('no invitation link logged');
    },
    async close() {
      await browser.close();
      api.child.kill('SIGTERM');
      await api.exited;
      await database.drop();
    },
  };
}

/** A joined user with `role`, through the API: invited, then the logged link accepted. */
export async function addJoinedUser(rig: ConsoleRig, adminToken: string, user: { username: string; email: string; name: string; password: string; role?: string }) {
  const since = rig.logged();
  const invited = await rig.request('POST', '/v1/users/invite', { token: adminToken, json: { email: user.email, name: user.name, ...(user.role ? { role: user.role } : {}) } });
  if (invited.status !== 201) throw new Error(`invite ${user.email}: ${invited.status} ${JSON.stringify(invited.body)}`);
  const token = await rig.invitationToken(since);
  const accepted = await rig.request('POST', '/v1/invitations/accept', { json: { token, name: user.name, username: user.username, password: user.password } });
  if (accepted.status !== 200) throw new Error(`accept ${user.email}: ${accepted.status} ${JSON.stringify(accepted.body)}`);
  return invited.headers.get('location')!.replace('/v1/users/', '');
}

const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * axe-core's WCAG 2.1 A and AA rules on the page as it is: the serious and critical violations, in words. Its
 * source goes in through the DevTools protocol (page.evaluate), which the page's CSP does not govern.
 */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  // A string: the page's globals (window, document) are not this program's (no DOM types here).
  const violations = (await page.evaluate(
    "axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } }).then((result) => result.violations)",
  )) as AxeViolation[];
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.impact} ${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`);
}

/** A screenshot for docs/CONSOLE.md. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(CONSOLE_SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(CONSOLE_SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** Nothing wider than the window: no sideways scrolling of the page itself (tables scroll in their own region). */
export async function overflowsSideways(page: Page): Promise<boolean> {
  return (await page.evaluate('document.documentElement.scrollWidth > window.innerWidth + 1')) as boolean;
}

/** A new page signed in through the console as the admin, on the Users screen it opens. */
export async function adminPage(rig: ConsoleRig): Promise<{ page: Page; problems: string[] }> {
  const { page, problems } = await rig.newPage();
  await signInThroughConsole(page, rig.url, ADMIN.username, ADMIN.password);
  await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
  return { page, problems };
}

/**
 * A destructive action through its confirmation (console/src/ui/confirmed.tsx): its button opens it, and it is done
 * only once the word is typed; till then its confirming button stays disabled.
 */
export async function confirmAction(page: Page, action: string, word: string, opener = page.getByRole('button', { name: action, exact: true })): Promise<void> {
  await opener.click();
  const form = page.getByRole('form', { name: action });
  const confirm = form.getByRole('button', { name: action, exact: true });
  if (!(await confirm.isDisabled())) throw new Error(`${action}: its confirmation can be confirmed before the word is typed`);
  await form.getByLabel(/to confirm/).fill(word);
  await confirm.click();
}

/**
 * Signs out with the console's button and waits for its sign-in form. A navigation started before that (the next
 * sign-in's `goto`) can cancel the sign-out under way, and the page loaded then finds the session still there: a CI
 * run waited 30 s for a sign-in form that never came.
 */
export async function signOutThroughConsole(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByLabel('Username').waitFor();
}

export async function signInThroughConsole(page: Page, url: string, username: string, password: string): Promise<void> {
  await page.goto(`${url}/console`);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}
