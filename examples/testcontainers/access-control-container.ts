/**
 * access-control as a testcontainers container, run the way Kubernetes runs it: read-only root
 * filesystem, the image's numeric non-root user, writable only /tmp and /data. Copy this file
 * into your tests (it needs only `testcontainers`); see docs/TESTCONTAINERS.md.
 *
 *   const api = await new AccessControlContainer('api').withEnvironment({ DATABASE_URL }).withNetwork(network).start();
 *   const url = api.url(); // also the tokens' issuer: discovery at `${url}/.well-known/openid-configuration`
 *
 * Unless you set PUBLIC_URL, the api's port is published on a free host port chosen before the start, and PUBLIC_URL
 * (the tokens' issuer, the links in mails and discovery) is the URL the test reaches it at, so a verifier given only
 * the issuer (jose, openid-client, Spring's issuer-uri, go-oidc) finds the keys.
 */
import { createServer } from 'node:net';
import { AbstractStartedContainer, GenericContainer, getContainerRuntimeClient, type StartedTestContainer, Wait } from 'testcontainers';

export type AccessControlProcess = 'api' | 'mailer' | 'migrate';

export const DEFAULT_IMAGE = 'access-control:local';
export const API_PORT = 3000;
export const MAILER_METRICS_PORT = 9464;

export class AccessControlContainer extends GenericContainer {
  private readOnlyRoot = true;

  constructor(
    readonly process: AccessControlProcess = 'api',
    image: string = globalThis.process.env.ACCESS_CONTROL_IMAGE ?? DEFAULT_IMAGE,
  ) {
    super(image);
    this.withCommand([process])
      // /data is the image's VOLUME: the engine gives it an anonymous volume the image's user owns
      // (a tmpfs there would be root's under Podman; see docs/TESTCONTAINERS.md).
      .withTmpFs({ '/tmp': 'rw' })
      .withStartupTimeout(120_000);
    if (process === 'api') {
      this.withExposedPorts(API_PORT).withWaitStrategy(Wait.forHttp('/readyz', API_PORT).forStatusCode(200));
    } else if (process === 'mailer') {
      this.withEnvironment({ MAILER_METRICS_PORT: String(MAILER_METRICS_PORT) })
        .withExposedPorts(MAILER_METRICS_PORT)
        .withWaitStrategy(Wait.forHttp('/readyz', MAILER_METRICS_PORT).forStatusCode(200));
    } else {
      // The migration job runs to completion; start() resolves once it exited 0.
      this.withWaitStrategy(Wait.forOneShotStartup());
    }
  }

  /** Lets the container write its root filesystem (off by default, as in Kubernetes). */
  withWritableRootFilesystem(): this {
    this.readOnlyRoot = false;
    return this;
  }

  protected override async beforeContainerCreated(): Promise<void> {
    this.hostConfig.ReadonlyRootfs = this.readOnlyRoot;
  }

  override async start(): Promise<StartedAccessControlContainer> {
    if (this.process === 'api' && this.environment.PUBLIC_URL === undefined) {
      const host = (await getContainerRuntimeClient()).info.containerRuntime.host;
      const port = await freeHostPort();
      this.exposedPorts = this.exposedPorts.filter((exposed) => exposed !== API_PORT);
      this.withExposedPorts({ container: API_PORT, host: port }).withEnvironment({ PUBLIC_URL: `http://${host}:${port}` });
    }
    return new StartedAccessControlContainer(await super.start(), this.process);
  }
}

/** A port nothing on this host listens on now (the engine publishes on it a moment later). */
function freeHostPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export class StartedAccessControlContainer extends AbstractStartedContainer {
  constructor(
    started: StartedTestContainer,
    readonly process: AccessControlProcess,
  ) {
    super(started);
  }

  /** Base URL of the API (api) or of the metrics and health endpoints (mailer), from the test process. */
  url(): string {
    const port = this.process === 'mailer' ? MAILER_METRICS_PORT : API_PORT;
    return `http://${this.getHost()}:${this.getMappedPort(port)}`;
  }
}
