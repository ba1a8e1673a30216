/**
 * The service's image, run the way Kubernetes and docker-compose run it: read-only root filesystem,
 * the image's numeric non-root user, /data as a named volume or a tmpfs, one process per container
 * (migrate, api, mailer), on one network with MariaDB or MySQL, a Kafka broker and an SMTP server.
 * An invitation goes in at the api container and comes out of the mailer container as a mail.
 * The image is built by scripts/container-images.sh (`make test` runs it first).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { StartedKafkaContainer } from '@testcontainers/kafka';
import { getContainerRuntimeClient, ImageName, Network, type StartedNetwork, type StartedTestContainer } from 'testcontainers';
import { AccessControlContainer, type StartedAccessControlContainer } from '../../../examples/testcontainers/access-control-container';
import {
  type DatabaseContainer,
  IMAGE,
  logsOf,
  requireContainerEngine,
  startKafka,
  startMailpit,
  startMariaDb,
  startMySql,
  waitForMail,
} from '../../support/containers';
import { startContainer } from '../../support/container-start';
import { tokenFromText } from '../../support/smtp-test-server';

jest.setTimeout(300_000);

const ADMIN = { username: 'image.admin', password: 'image-admin-password', email: 'image.admin@example.test' };
const report: Record<string, unknown> = {};

let network: StartedNetwork;
/**
 * The network's names (the aliases the URLs name) as /etc/hosts entries for the service's containers: Podman's
 * network DNS (aardvark-dns) reloads on every network another test file creates or removes, and one full run saw
 * `mariadb` unresolvable for two minutes on end. The hosts file needs no DNS; what is tested is the image, not it.
 */
let hosts: { host: string; ipAddress: string }[] = [];
let kafka: StartedKafkaContainer;
let mail: { container: StartedTestContainer; api: string };
const databases: DatabaseContainer[] = [];
const started: StartedTestContainer[] = [];
const volumes: string[] = [];

beforeAll(async () => {
  await requireContainerEngine();
  network = await new Network().start();
  const [mariadb, mysql, broker, mailpit] = await Promise.all([startMariaDb(network), startMySql(network), startKafka(network), startMailpit(network)]);
  databases.push(mariadb, mysql);
  kafka = broker;
  mail = mailpit;
  const on = (container: StartedTestContainer) => container.getIpAddress(network.getName());
  hosts = [
    { host: 'mariadb', ipAddress: on(mariadb.container) },
    { host: 'mysql', ipAddress: on(mysql.container) },
    { host: 'kafka', ipAddress: on(broker) },
    { host: 'smtp', ipAddress: on(mailpit.container) },
  ];
});

afterAll(async () => {
  const client = await getContainerRuntimeClient();
  // A one-shot container has exited already: stop() may refuse it, so it is removed by force.
  for (const container of started.reverse()) {
    await container.stop().catch(() => client.container.getById(container.getId()).remove({ force: true, v: true }).catch(() => undefined));
  }
  for (const name of volumes) await client.container.dockerode.getVolume(name).remove().catch(() => undefined);
  await Promise.all([kafka?.stop(), mail?.container.stop(), ...databases.map((d) => d.container.stop())].map((p) => p?.catch(() => undefined)));
  await network?.stop().catch(() => undefined);
  const out = path.resolve(__dirname, '../../../.cache');
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, 'image-report.json'), `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`[image] ${JSON.stringify(report)}\n`);
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are read field by field in the tests
type Body = any;

async function json(url: string, init: { method?: string; body?: unknown; token?: string } = {}): Promise<{ status: number; body: Body; headers: Headers }> {
  const response = await fetch(url, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: {
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}

/**
 * Starts one of the service's containers and keeps it for afterAll. Its output is gathered from the start: when the
 * start fails (a wait that times out, a one-shot that exits non-zero) testcontainers removes the container and its
 * log with it, so the error carries what the process printed. A definition is built afresh for each attempt
 * startContainer makes.
 */
async function run(define: () => AccessControlContainer): Promise<StartedAccessControlContainer> {
  let output = '';
  let processName = '';
  const running = await startContainer(() => {
    const container = define();
    output = '';
    processName = container.process;
    return container.withLogConsumer((stream) =>
      stream
        .on('data', (chunk: Buffer | string) => (output = (output + chunk.toString()).slice(-20_000)))
        .on('error', () => undefined),
    );
  }).catch((error: Error) => {
    throw new Error(`${error.message}\nthe ${processName} container printed:\n${output || '(nothing)'}`);
  });
  started.push(running);
  return running;
}

describe('the image', () => {
  it('runs as a numeric non-root user, keeps its state in the /data volume and exposes no port it may not listen on', async () => {
    const client = await getContainerRuntimeClient();
    const inspect = await client.image.inspect(ImageName.fromString(IMAGE));
    expect(inspect.Config.User).toMatch(/^\d+:\d+$/);
    expect(inspect.Config.User.startsWith('0:')).toBe(false);
    expect(Object.keys(inspect.Config.Volumes ?? {})).toEqual(['/data']);
    // EXPOSEd ports that a process does not publish make testcontainers on Podman wait forever.
    expect(Object.keys(inspect.Config.ExposedPorts ?? {})).toEqual([]);
    report.imageSizeMB = Math.round(inspect.Size / 1e6);
  });

  it('serves the embedded default with a read-only root and no mount at all, asking only for port 3000', async () => {
    const t0 = Date.now();
    const api = await run(() =>
      new AccessControlContainer('api', IMAGE)
        .withEnvironment({ ADMIN_USERNAME: ADMIN.username, ADMIN_PASSWORD: ADMIN.password, ADMIN_EMAIL: ADMIN.email })
    );
    report.embeddedReadyMs = Date.now() - t0;
    const signIn = await json(`${api.url()}/v1/auth/signin`, { body: { username: ADMIN.username, password: ADMIN.password } });
    expect(signIn.status).toBe(200);
    // The admin console (#25) is built into the image: its page, and the script the page names.
    const consolePage = await fetch(`${api.url()}/console`);
    const html = await consolePage.text();
    expect([consolePage.status, consolePage.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
    expect((await fetch(`${api.url()}${/src="(\/console\/assets\/[^"]+\.js)"/.exec(html)![1]}`)).status).toBe(200);
    // Nothing but /data and /tmp can be written.
    const probe = await api.exec(['node', '-e', "require('fs').writeFileSync('/app/probe', 'x')"]);
    expect(probe.exitCode).not.toBe(0);
    expect(probe.output).toMatch(/EROFS|read-only/i);
    await api.stop();
  });

  it('starts with a database URL when /data is not writable (a tmpfs as Podman makes it), signing with a key of its own', async () => {
    const db = databases[0];
    const api = await run(() =>
      new AccessControlContainer('api', IMAGE)
        .withTmpFs({ '/tmp': 'rw,mode=1777', '/data': 'rw' })
        .withNetwork(network)
        .withExtraHosts(hosts)
        .withEnvironment({ DATABASE_URL: db.internalUrl, ADMIN_USERNAME: ADMIN.username, ADMIN_PASSWORD: ADMIN.password, ADMIN_EMAIL: ADMIN.email })
    );
    const signIn = await json(`${api.url()}/v1/auth/signin`, { body: { username: ADMIN.username, password: ADMIN.password } });
    expect(signIn.status).toBe(200);
    expect(await logsOf(api)).toMatch(/DATA_DIR is not writable/);
    await api.stop();
  });
});

describe.each(['mariadb', 'mysql'] as const)('migrate, api and mailer containers on %s, Kafka and SMTP', (kind) => {
  let api: StartedAccessControlContainer;
  let mailer: StartedAccessControlContainer;
  let common: Record<string, string>;

  beforeAll(async () => {
    const db = databases.find((d) => d.kind === kind)!;
    const volume = `access-control-test-${randomBytes(4).toString('hex')}`;
    volumes.push(volume);
    common = {
      DATABASE_URL: db.internalUrl,
      KAFKA_BROKERS: 'kafka:9092',
      KAFKA_TOPIC: `access-control.user-events.${kind}`,
      MAILER_GROUP_ID: `access-control-mailer-${kind}`,
      PUBLIC_URL: 'http://access-control.test',
      LOG_LEVEL: 'info',
    };
    await run(() => new AccessControlContainer('migrate', IMAGE).withNetwork(network).withExtraHosts(hosts).withEnvironment(common));
    const t0 = Date.now();
    api = await run(() =>
      new AccessControlContainer('api', IMAGE)
        .withNetwork(network)
        .withExtraHosts(hosts)
        // /data as a named volume, as `docker run -v ac-data:/data` and the compose file mount it.
        .withBindMounts([{ source: volume, target: '/data', mode: 'rw' }])
        .withEnvironment({ ...common, MIGRATE_ON_START: 'false', ADMIN_USERNAME: ADMIN.username, ADMIN_PASSWORD: ADMIN.password, ADMIN_EMAIL: ADMIN.email })
    );
    report[`${kind}.apiReadyMs`] = Date.now() - t0;
    const t1 = Date.now();
    mailer = await run(() =>
      new AccessControlContainer('mailer', IMAGE)
        .withNetwork(network)
        .withExtraHosts(hosts)
        .withEnvironment({ ...common, SMTP_URL: 'smtp://smtp:1025', MAIL_FROM: 'Access Control <no-reply@example.test>' })
    );
    report[`${kind}.mailerReadyMs`] = Date.now() - t1;
  });

  it('an invitation at the api comes out of the mailer as a mail whose link joins the user', async () => {
    const signIn = await json(`${api.url()}/v1/auth/signin`, { body: { username: ADMIN.username, password: ADMIN.password } });
    expect(signIn.status).toBe(200);
    const token = signIn.body.accessToken as string;
    const email = `grace.${kind}@example.test`;
    const invited = await json(`${api.url()}/v1/users/invite`, { token, body: { email, name: 'Grace Hopper' } });
    expect(invited.status).toBe(201);

    const message = await waitForMail(mail.api, email, 60_000).catch(async (error: Error) => {
      throw new Error(`${error.message}\napi:\n${await logsOf(api)}\nmailer:\n${await logsOf(mailer)}`);
    });
    expect(message.Text).toContain('http://access-control.test/invitations/accept?token=');
    const secret = tokenFromText(message.Text)!;
    const page = await fetch(`${api.url()}/invitations/accept?token=${encodeURIComponent(secret)}`);
    expect(page.status).toBe(200);
    const accepted = await json(`${api.url()}/v1/invitations/accept`, {
      body: { token: secret, name: 'Grace Hopper', username: `grace.${kind}`, password: 'a long passphrase for grace' },
    });
    expect(accepted.status).toBe(200);
    const joined = await json(`${api.url()}/v1/auth/signin`, { body: { username: `grace.${kind}`, password: 'a long passphrase for grace' } });
    expect(joined.status).toBe(200);
  });

  it('keeps the signing key in the /data volume: a new api container accepts the old token', async () => {
    const signIn = await json(`${api.url()}/v1/auth/signin`, { body: { username: ADMIN.username, password: ADMIN.password } });
    const container = (await getContainerRuntimeClient()).container.getById(api.getId());
    const mounts = ((await container.inspect()).Mounts ?? []).filter((m) => m.Destination === '/data');
    expect(mounts).toHaveLength(1);
    await api.stop();
    api = await run(() =>
      new AccessControlContainer('api', IMAGE)
        .withNetwork(network)
        .withExtraHosts(hosts)
        .withBindMounts([{ source: mounts[0].Name!, target: '/data', mode: 'rw' }])
        // The same settings (the token's issuer is PUBLIC_URL), the same volume, a new container.
        .withEnvironment({ ...common, MIGRATE_ON_START: 'false' })
    );
    const users = await json(`${api.url()}/v1/users`, { token: signIn.body.accessToken });
    expect(users.status).toBe(200);
  });
});
