/**
 * How another team starts access-control in its integration tests with testcontainers: the image,
 * a MariaDB and a Kafka on one network, a bootstrap admin from the environment, ready when /readyz
 * answers 200. Then sign in as that admin and read the service's events from Kafka.
 *
 * Needs a container engine (Docker or Podman) and the image (`docker build -t access-control:local .`).
 * `make test` runs it (test/e2e/image/testcontainers-example.e2e.test.ts). See docs/TESTCONTAINERS.md.
 */
import { KafkaContainer, type StartedKafkaContainer } from '@testcontainers/kafka';
import { MariaDbContainer, type StartedMariaDbContainer } from '@testcontainers/mariadb';
import { Kafka, logLevel } from 'kafkajs';
import { Network, type StartedNetwork } from 'testcontainers';
import { AccessControlContainer, type StartedAccessControlContainer } from './access-control-container';

export const ADMIN = { username: 'admin', password: 'a-test-admin-password', email: 'admin@example.test' };
export const EVENTS_TOPIC = 'access-control.user-events.v1';

export interface AccessControl {
  /** Base URL from the test process, e.g. http://localhost:49153: also the tokens' issuer. */
  url: string;
  /** `host:port` of Kafka from the test process, for your own consumers. */
  kafkaBrokers: string;
  signIn(username?: string, password?: string): Promise<string>;
  stop(): Promise<void>;
}

export async function startAccessControl(image = process.env.ACCESS_CONTROL_IMAGE ?? 'access-control:local'): Promise<AccessControl> {
  const network: StartedNetwork = await new Network().start();
  const [mariadb, kafka]: [StartedMariaDbContainer, StartedKafkaContainer] = await Promise.all([
    new MariaDbContainer('mariadb:10.11').withNetwork(network).withNetworkAliases('db').withDatabase('access_control').start(),
    // 9092 is published too: Podman 4 waits for every port the image EXPOSEs.
    new KafkaContainer('confluentinc/cp-kafka:7.9.2').withKraft().withNetwork(network).withNetworkAliases('kafka').withExposedPorts(9093, 9092).start(),
  ]);

  // Read-only root filesystem, the image's non-root user, a tmpfs on /tmp and /data on the image's volume: as
  // Kubernetes runs it. PUBLIC_URL, the tokens' issuer, is left to the container: the URL this test reaches it at.
  const api: StartedAccessControlContainer = await new AccessControlContainer('api', image)
    .withNetwork(network)
    .withEnvironment({
      // Container to container: the network aliases and the containers' own ports.
      DATABASE_URL: `mariadb://${mariadb.getUsername()}:${mariadb.getUserPassword()}@db:3306/access_control`,
      KAFKA_BROKERS: 'kafka:9092',
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_PASSWORD: ADMIN.password,
      ADMIN_EMAIL: ADMIN.email,
      LOG_LEVEL: 'warn',
    })
    // Ready = database reachable and migrated (the API migrates on start by default).
    .start();

  const url = api.url();
  const signIn = async (username = ADMIN.username, password = ADMIN.password): Promise<string> => {
    const response = await fetch(`${url}/v1/auth/signin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password }),
    });
    if (response.status !== 200) throw new Error(`sign-in failed: ${response.status}`);
    return ((await response.json()) as { accessToken: string }).accessToken;
  };

  return {
    url,
    kafkaBrokers: `${kafka.getHost()}:${kafka.getMappedPort(9093)}`,
    signIn,
    async stop() {
      await api.stop();
      await Promise.all([kafka.stop(), mariadb.stop()]);
      await network.stop();
    },
  };
}

/** An example test body: invite someone and see the UserInvited event on the topic. */
export async function exampleInviteAndReadEvent(service: AccessControl): Promise<{ type: string; requestid?: string }> {
  const token = await service.signIn();
  const invited = await fetch(`${service.url}/v1/users/invite`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-request-id': 'my-test-42' },
    body: JSON.stringify({ email: 'grace@example.test', name: 'Grace Hopper' }),
  });
  if (invited.status !== 201) throw new Error(`invite failed: ${invited.status}`);

  const consumer = new Kafka({ clientId: 'my-service-tests', brokers: [service.kafkaBrokers], logLevel: logLevel.NOTHING }).consumer({ groupId: `tests-${Date.now()}` });
  await consumer.connect();
  await consumer.subscribe({ topic: EVENTS_TOPIC, fromBeginning: true });
  const event = await new Promise<{ type: string; requestid?: string; data: { email: string } }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no UserInvited event for grace@example.test within 30 s')), 30_000);
    void consumer.run({
      eachMessage: async ({ message }) => {
        const value = JSON.parse(String(message.value)) as { type: string; requestid?: string; data: { email: string } };
        if (value.type === 'UserInvited' && value.data.email === 'grace@example.test') {
          clearTimeout(timer);
          resolve(value);
        }
      },
    });
  }).finally(() => consumer.disconnect());
  if (event.requestid !== 'my-test-42') throw new Error('the event carries the request id of the invite');
  return event;
}
