/**
 * docker-compose.yml brought up whole by a compose tool against the container engine (Docker
 * Compose where it is installed, else Debian's podman-compose), on host ports of its own: MySQL,
 * Kafka, Mailpit, the migrate job, the api and the mailer. An invitation goes in at the api and
 * comes out at Mailpit. Then `down -v` removes everything it made.
 */
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { requireContainerEngine, waitForMail } from '../../support/containers';
import { tokenFromText } from '../../support/smtp-test-server';
import { freePort } from '../../support/free-port';

jest.setTimeout(420_000);

const ROOT = path.resolve(__dirname, '../../..');
const run = promisify(execFile);

function composeTool(): string[] {
  for (const candidate of [['docker', 'compose'], ['podman-compose'], ['docker-compose']]) {
    try {
      execFileSync(candidate[0], [...candidate.slice(1), 'version'], { stdio: 'ignore', timeout: 20_000 });
      return candidate;
    } catch {
      // try the next one
    }
  }
  throw new Error('no compose tool: install Docker Compose, or podman-compose (apt-get install podman-compose)');
}


async function waitFor200(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (response.status === 200) return;
      last = `${response.status} ${await response.text()}`;
    } catch (error) {
      last = (error as Error).message;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`${url} not 200 within ${timeoutMs} ms (last: ${last})`);
}

const project = `ac-compose-${randomBytes(3).toString('hex')}`;
let tool: string[];
let env: NodeJS.ProcessEnv;
let ports: { api: number; mailpit: number; mailer: number };

async function compose(...args: string[]): Promise<string> {
  const { stdout, stderr } = await run(tool[0], [...tool.slice(1), '-p', project, ...args], { cwd: ROOT, env, maxBuffer: 32 * 1024 * 1024 });
  return `${stdout}${stderr}`;
}

beforeAll(async () => {
  await requireContainerEngine();
  tool = composeTool();
  ports = { api: await freePort(), mailpit: await freePort(), mailer: await freePort() };
  env = {
    ...process.env,
    ADMIN_PASSWORD: 'compose-admin-password',
    API_PORT: String(ports.api),
    MAILPIT_UI_PORT: String(ports.mailpit),
    MAILER_METRICS_HOST_PORT: String(ports.mailer),
  };
  await compose('up', '-d');
});

afterAll(async () => {
  if (!tool) return;
  const logs = await compose('logs').catch(() => '');
  await compose('down', '-v').catch((error: Error) => process.stderr.write(`compose down failed: ${error.message}\n${logs.slice(-4000)}\n`));
});

/** The end of a log: its JSON lines as `level msg (reason)`, other lines as they are, the compose tool's own chatter left out. */
function compactLog(text: string, keep = 25): string {
  const chatter = /^(\['podman'|using podman version|podman (logs|exec|ps) |exit code: )/;
  const shown: string[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '' || chatter.test(line)) continue;
    const brace = line.indexOf('{');
    if (brace < 0) {
      shown.push(line);
      continue;
    }
    try {
      const entry = JSON.parse(line.slice(brace)) as { level?: unknown; msg?: unknown; reason?: unknown; err?: { message?: unknown } };
      if (entry.msg === undefined) continue;
      const why = entry.reason ?? entry.err?.message;
      shown.push(`${String(entry.level)} ${String(entry.msg)}${why === undefined ? '' : ` (${String(why)})`}`);
    } catch {
      shown.push(line);
    }
  }
  return shown.slice(-keep).join('\n');
}

/**
 * Waits for a 200; when none comes, the error says whether the service answers inside its
 * container (then the engine's port forwarding is at fault, not the service), the host's NAT
 * rules for the port, the api's log, and the state of every container.
 */
async function ready(url: string, service: 'api' | 'mailer', containerPort: number): Promise<void> {
  try {
    await waitFor200(url, 180_000);
  } catch (error) {
    const hostPort = new URL(url).port;
    const attempt = async (label: string, step: () => Promise<string>) => `--- ${label}\n${await step().catch((e: Error) => e.message.slice(-1500))}`;
    const sections = [
      await attempt(`${service}'s /readyz from inside its container`, () =>
        compose('exec', '-T', service, 'node', '-e', `fetch('http://127.0.0.1:${containerPort}/readyz').then(async r=>console.log(r.status,await r.text()),e=>console.log('inside: '+e.message))`),
      ),
      await attempt(`NAT rules naming port ${hostPort}`, async () => {
        const { stdout } = await run('iptables-save', ['-t', 'nat']);
        return stdout.split('\n').filter((line) => line.includes(hostPort)).join('\n') || `none: nothing forwards ${hostPort}`;
      }),
    ];
    // Per service: the whole stack's log ends with Kafka's configuration dump, which hides the api's last lines.
    for (const name of [service, 'migrate']) sections.push(await attempt(`${name} log (end)`, async () => compactLog(await compose('logs', name))));
    sections.push(await attempt('compose ps', () => compose('ps')));
    throw new Error(`${(error as Error).message}\n${sections.join('\n')}`);
  }
}

it('brings the stack up: the api ready, the mailer consuming, an invitation mailed with a working link', async () => {
  const api = `http://127.0.0.1:${ports.api}`;
  await ready(`${api}/readyz`, 'api', 3000);
  await ready(`http://127.0.0.1:${ports.mailer}/readyz`, 'mailer', 9464);

  const signIn = await fetch(`${api}/v1/auth/signin`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: 'compose-admin-password' }),
  });
  expect(signIn.status).toBe(200);
  const { accessToken } = (await signIn.json()) as { accessToken: string };
  const invited = await fetch(`${api}/v1/users/invite`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
    body: JSON.stringify({ email: 'ada@example.test', name: 'Ada Lovelace' }),
  });
  expect(invited.status).toBe(201);

  const mail = await waitForMail(`http://127.0.0.1:${ports.mailpit}`, 'ada@example.test', 60_000);
  // PUBLIC_URL follows API_PORT: the link points where the api is published.
  expect(mail.Text).toContain(`http://localhost:${ports.api}/`);
  const token = tokenFromText(mail.Text);
  expect(token).toBeDefined();
  const page = await fetch(`${api}/invitations/accept?token=${encodeURIComponent(token!)}`);
  expect(page.status).toBe(200);
});
