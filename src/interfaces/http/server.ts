import type { FastifyInstance } from 'fastify';
import { type Config, loadConfig } from '../../infrastructure/config/config';
import { type AppContainer, buildContainer, type Overrides } from '../../infrastructure/container';
import { createLogger, type Logger } from '../../infrastructure/logging/logger';
import { startMetricsServer } from '../../infrastructure/observability/metrics-server';
import { subscribeMails } from '../mailer/in-process-mails';
import { describeError } from '../../infrastructure/logging/logger';
import { checkMfaKey } from '../../infrastructure/crypto/mfa-key-check';
import { SigningKeyWatch } from '../../infrastructure/crypto/signing-key-watch';
import { prepareDatabase } from '../process-runtime';
import { sleepUnlessAborted as sleep } from '../../infrastructure/system/backoff';
import { listening } from '../../infrastructure/config/listen-problems';
import { buildHttpApp } from './app';

export interface RunningApi {
  app: FastifyInstance;
  container: AppContainer;
  url: string;
  /** The management listener: `${metricsUrl}/metrics`. */
  metricsUrl: string;
  /** Graceful stop: not ready at once, drain, finish in-flight requests, close everything. */
  close(): Promise<void>;
}

export interface StartOptions {
  config?: Config;
  logger?: Logger;
  overrides?: Overrides;
}

/**
 * Connections the kernel queues for the api before it accepts them (capped by net.core.somaxconn, 4096 on current
 * kernels). Node's default, 511, overflowed when a burst of clients connected at once while the event loop was busy:
 * the excess were dropped and retried, and some reset (ECONNRESET) without ever reaching the service.
 */
const LISTEN_BACKLOG = 4096;

export async function startApi(options: StartOptions = {}): Promise<RunningApi> {
  const config = options.config ?? loadConfig();
  const logger = options.logger ?? createLogger(config.logLevel);
  const container = buildContainer(config, logger, options.overrides);
  // The keys at start: a warning about where they come from (or a broken key file) shows now, not at a first sign-in.
  container.resolve('signingKeys');
  container.resolve('mfaKey');
  const app = await buildHttpApp(container);
  await prepareDatabase(container, { migrate: config.migrateOnStart });
  // Whether this replica's MFA key opens the secrets others sealed: said at start, not at the first refused code.
  void checkMfaKey(container.cradle.dataSource, container.cradle.mfaKey, logger);
  // Whether every replica signs with a key this one accepts: said in the log, not left to the 401s. SQLite has one process.
  const signingKeyWatch =
    config.database.kind === 'sqlite'
      ? null
      : new SigningKeyWatch({
          dataSource: container.cradle.dataSource,
          signingKey: container.cradle.signingKey,
          verificationKeys: container.cradle.verificationKeys,
          logger,
          longestTokenSeconds: Math.max(config.jwt.ttlSeconds, config.jwt.serviceTokenTtlSeconds),
        });
  signingKeyWatch?.start();
  const stopEvents = await startEventFlow(container);
  // The audit trail's sealer and retention sweeper (#23): off the request path, on every replica.
  container.cradle.auditMaintenance.start();
  // The revocation signal (#26): each request's subject served from memory while it is trusted.
  if (config.revocationWindowSeconds > 0) container.cradle.revocationWatch.start();
  // The management port first: a port already taken stops the start before the API answers anyone.
  const metricsServer = await listening('METRICS_PORT', config.metricsPort, config.host, () =>
    startMetricsServer(container.cradle.metrics.registry, config.metricsPort, config.host),
  );
  await listening('PORT', config.port, config.host, () => app.listen({ port: config.port, host: config.host, backlog: LISTEN_BACKLOG }));

  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const shownHost = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  const url = `http://${shownHost}:${port}`;
  const metricsUrl = `http://${shownHost}:${metricsServer.port}`;
  // The issuer as clients must write it (PUBLIC_URL's trailing slash dropped): go-oidc and others compare it byte for byte.
  const issuer = config.jwt.issuer;
  logger.info(
    { url, issuer, docs: `${url}/docs`, console: `${url}/console`, metrics: `${metricsUrl}/metrics` },
    `access-control ready at ${url}, issuer ${issuer} (API docs: ${url}/docs, admin console: ${url}/console)`,
  );

  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= (async () => {
      container.cradle.readiness.startDraining();
      if (config.shutdownDrainSeconds > 0) await sleep(config.shutdownDrainSeconds * 1000);
      await app.drainConnections();
      await app.close();
      await metricsServer.close();
      await stopEvents();
      await container.cradle.auditMaintenance.stop();
      signingKeyWatch?.stop();
      await container.dispose();
    })();
    return closing;
  };
  return { app, container, url, metricsUrl, close };
}

/**
 * Starts the outbox relay (unless RELAY_ENABLED=false) and, on the embedded default (no Kafka),
 * the mailer on the in-process bus. Returns the orderly stop: relay, last flush, mailer.
 */
async function startEventFlow(container: AppContainer): Promise<() => Promise<void>> {
  const { config, logger, inProcessBus, eventPublisher } = container.cradle;
  const unsubscribe = inProcessBus
    ? subscribeMails(inProcessBus, {
        issueInvitation: container.cradle.issueInvitation,
        issuePasswordReset: container.cradle.issuePasswordReset,
        logger,
      })
    : () => undefined;
  if (!config.relayEnabled) return async () => unsubscribe();

  const relay = container.cradle.outboxRelay;
  // Connecting ahead of the first publish keeps the first event fast; Kafka being away is no reason not to start.
  const connect = (eventPublisher as { connect?: () => Promise<void> }).connect;
  if (connect) await connect.call(eventPublisher).catch((error: unknown) => logger.warn({ reason: describeError(error) }, 'Kafka not reachable yet; the relay will retry'));
  relay.start();
  return async () => {
    await relay.stop();
    await relay.flush().catch((error: unknown) => logger.warn({ reason: describeError(error) }, 'events left in the outbox at shutdown; another replica or the next start publishes them'));
    unsubscribe();
  };
}
