/**
 * What the tests of the service's image share: the engine check, the backing services as
 * containers on one network (each under the alias the service's settings name; started through
 * startContainer, which tries again when Podman lost the host port it chose), and reading the
 * mails a Mailpit (or its local stand-in) received.
 */
import { KafkaContainer, type StartedKafkaContainer } from '@testcontainers/kafka';
import { MariaDbContainer } from '@testcontainers/mariadb';
import { GenericContainer, type StartedNetwork, type StartedTestContainer, Wait } from 'testcontainers';
import { probeContainerRuntime } from './container-runtime';
import { startContainer } from './container-start';

export const IMAGE = process.env.ACCESS_CONTROL_IMAGE ?? 'access-control:local';

/**
 * Fails the test file with what is missing, rather than skipping: `make test` provides an engine.
 * A missing engine fails at once (nothing listens on its socket); a busy one is given a minute, as
 * podman's service answers its first `info` slowly while other tests create containers (seen: over
 * 10 s at a load of 10 on 2 cores).
 */
export async function requireContainerEngine(): Promise<void> {
  const problem = await probeContainerRuntime(60_000);
  if (problem !== undefined) {
    throw new Error(
      `no container engine answers (${problem}). \`make test\` starts one (scripts/container-engine.sh) and builds the ` +
        'images (scripts/container-images.sh); by hand: `bash scripts/container-engine.sh && source .cache/container-engine.env`',
    );
  }
}

export interface DatabaseContainer {
  kind: 'mariadb' | 'mysql';
  container: StartedTestContainer;
  /** URL from another container on the network. */
  internalUrl: string;
}

const DB_USER = 'access_control';
const DB_PASSWORD = 'access-control-test';
const DB_NAME = 'access_control';
/** The image tests start four services at once beside the rest of the suite: a JVM or a database given 60 s (the default) has missed it under that load. */
const STARTUP_TIMEOUT_MS = 180_000;

export async function startMariaDb(network: StartedNetwork, alias = 'mariadb'): Promise<DatabaseContainer> {
  const container = await startContainer(() =>
    new MariaDbContainer('mariadb:10.11')
      .withNetwork(network)
      .withNetworkAliases(alias)
      .withDatabase(DB_NAME)
      .withUsername(DB_USER)
      .withUserPassword(DB_PASSWORD)
      .withStartupTimeout(STARTUP_TIMEOUT_MS),
  );
  return { kind: 'mariadb', container, internalUrl: `mariadb://${DB_USER}:${DB_PASSWORD}@${alias}:3306/${DB_NAME}` };
}

/** MySQL as its official image is run: MYSQL_DATABASE, MYSQL_USER, MYSQL_PASSWORD. */
export async function startMySql(network: StartedNetwork, alias = 'mysql'): Promise<DatabaseContainer> {
  const container = await startContainer(() =>
    new GenericContainer('mysql:8.4')
      .withNetwork(network)
      .withNetworkAliases(alias)
      .withEnvironment({ MYSQL_DATABASE: DB_NAME, MYSQL_USER: DB_USER, MYSQL_PASSWORD: DB_PASSWORD, MYSQL_RANDOM_ROOT_PASSWORD: 'yes' })
      .withExposedPorts(3306)
      .withWaitStrategy(Wait.forListeningPorts())
      .withStartupTimeout(STARTUP_TIMEOUT_MS),
  );
  return { kind: 'mysql', container, internalUrl: `mysql://${DB_USER}:${DB_PASSWORD}@${alias}:3306/${DB_NAME}` };
}

/**
 * A KRaft broker reachable as `kafka:9092` from the network. 9092 is also published because
 * Podman (4.x) lists every EXPOSEd port of the image as a binding to wait for.
 */
export async function startKafka(network: StartedNetwork, alias = 'kafka'): Promise<StartedKafkaContainer> {
  return startContainer(() =>
    new KafkaContainer('confluentinc/cp-kafka:7.9.2')
      .withKraft()
      .withNetwork(network)
      .withNetworkAliases(alias)
      .withExposedPorts(9093, 9092)
      .withStartupTimeout(STARTUP_TIMEOUT_MS),
  );
}

export interface MailpitMessage {
  ID: string;
  To: { Address: string }[];
  Subject: string;
  Text: string;
  HTML: string;
}

/** Mailpit reachable as `smtp:1025` from the network; its HTTP API from the test process. */
export async function startMailpit(network: StartedNetwork, alias = 'smtp'): Promise<{ container: StartedTestContainer; api: string }> {
  const container = await startContainer(() =>
    new GenericContainer('axllent/mailpit:v1.27')
      .withNetwork(network)
      .withNetworkAliases(alias)
      .withExposedPorts(1025, 8025)
      .withWaitStrategy(Wait.forHttp('/readyz', 8025).forStatusCode(200))
      .withStartupTimeout(STARTUP_TIMEOUT_MS),
  );
  return { container, api: `http://${container.getHost()}:${container.getMappedPort(8025)}` };
}

/** Waits for the first mail to `to` and returns it whole. */
export async function waitForMail(api: string, to: string, timeoutMs = 30_000): Promise<MailpitMessage> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const list = (await (await fetch(`${api}/api/v1/messages`)).json()) as { messages: MailpitMessage[] };
    const found = list.messages.find((m) => m.To.some((r) => r.Address.toLowerCase() === to.toLowerCase()));
    if (found) return (await (await fetch(`${api}/api/v1/message/${found.ID}`)).json()) as MailpitMessage;
    if (Date.now() > deadline) throw new Error(`no mail to ${to} within ${timeoutMs} ms (${list.messages.length} mails in all)`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The tail of a container's log, for a failure message. */
export async function logsOf(container: StartedTestContainer, lines = 60): Promise<string> {
  const stream = await container.logs({ tail: lines });
  return new Promise((resolve) => {
    let text = '';
    stream.on('data', (chunk: Buffer | string) => (text += chunk.toString()));
    stream.on('end', () => resolve(text));
    stream.on('error', () => resolve(text));
    setTimeout(() => resolve(text), 2_000).unref();
  });
}
