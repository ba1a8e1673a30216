import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyBaseLogger, type FastifyHttpOptions, type FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../../infrastructure/config/config';
import type { AppContainer } from '../../infrastructure/container';
import type { Logger } from '../../infrastructure/logging/logger';
import { registerErrorHandler, sendProblem, toProblem } from './error-handler';
import anyOrigin from './plugins/any-origin';
import authentication from './plugins/authentication';
import connectionDraining from './plugins/connection-draining';
import connectionLimits from './plugins/connection-limits';
import methodNotAllowed from './plugins/method-not-allowed';
import observability from './plugins/observability';
import revocationWindow from './plugins/revocation-window';
import { counterRateLimitStore } from './plugins/rate-limit-store';
import { registerRateLimits } from './plugins/rate-limits';
import { registerPasswordWorkAdmission } from './plugins/password-work-admission';
import { hashingThreads } from '../thread-pool';
import { securityHeaders } from './plugins/security-headers';
import { openApiOptions } from './openapi';
import { noRoute } from './problem';
import { accountRoutes } from './routes/account.routes';
import { auditEventsRoutes } from './routes/audit-events.routes';
import { authRoutes } from './routes/auth.routes';
import { consoleSessionRoutes } from './routes/console-session.routes';
import { consoleRoutes } from './routes/console.routes';
import { consoleBundleDirectory, loadConsoleBundle } from './console/console-bundle';
import { mfaRoutes } from './routes/mfa.routes';
import { passkeysRoutes } from './routes/passkeys.routes';
import { accountSecurityPageRoutes } from './routes/account-security-page.routes';
import { discoveryRoutes } from './routes/discovery.routes';
import { oauthTokenRoutes } from './routes/oauth-token.routes';
import { INTROSPECTION_AUTH_METHODS, oauthTokenManagementRoutes, REVOCATION_AUTH_METHODS } from './routes/oauth-token-management.routes';
import { authorizationServerMetadata, OAUTH_PATHS } from './oauth/authorization-server-metadata';
import { refreshTokenGrant } from './oauth/refresh-token.grant';
import { clientCredentialsGrant } from './oauth/client-credentials.grant';
import { readJsonBodies } from './json-body';
import { refuseAmbiguousHeads } from './request-head';
import { answerClientError, answerConnect, answerUnmetExpectation, continueWithinLimit, REQUEST_ID, trackAnswer } from './raw-answers';
import { refuseContentCodings } from './content-coding';
import type { ClientAuthenticationDeps } from './oauth/client-authentication';
import { CLIENT_ASSERTION_ALGORITHMS } from '../../infrastructure/crypto/service-account-credential-verifier';
import { Permissions } from '../../domain/permissions/permission';
import { invitationsRoutes } from './routes/invitations.routes';
import { pagesRoutes } from './routes/pages.routes';
import { passwordResetPagesRoutes } from './routes/password-reset-pages.routes';
import { passwordResetRoutes } from './routes/password-reset.routes';
import { permissionsRoutes } from './routes/permissions.routes';
import { rolesRoutes } from './routes/roles.routes';
import { serviceAccountsRoutes } from './routes/service-accounts.routes';
import { systemRoutes } from './routes/system.routes';
import { userAdministrationRoutes } from './routes/user-administration.routes';
import { usersRoutes } from './routes/users.routes';
import { basePathOf } from './pages/page-layout';
import { publicPathRewrite } from './routes/public-paths';
import { SHARED_SCHEMAS } from './schemas';
import { registerValidators } from './validation';

/** How often Node looks for requests past REQUEST_TIMEOUT or HEADERS_TIMEOUT (its default, 30 s, let them run 30 s over). */
const CHECKING_INTERVAL_MS = 1_000;
const KEEP_ALIVE_TIMEOUT_MS = 72_000;

/** The HTTP interface, wired from the process's container. */
export async function buildHttpApp(container: AppContainer): Promise<FastifyInstance> {
  const app = Fastify(httpServerOptions(container.cradle.config, container.cradle.logger));
  await app.register(httpInterface, { container });
  return app;
}

export function httpServerOptions(config: Config, logger: Logger): FastifyHttpOptions<Server, FastifyBaseLogger> {
  return {
    loggerInstance: logger as FastifyBaseLogger,
    bodyLimit: config.bodyLimitBytes,
    // A client's x-request-id is kept when it is a sane token; otherwise we mint one.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    routerOptions: { maxParamLength: 200, ignoreTrailingSlash: true },
    // Behind a proxy that forwards PUBLIC_URL's path instead of stripping it, every route answers under it too.
    rewriteUrl: publicPathRewrite(basePathOf(config.publicUrl)),
    // A request head beyond this is refused by Node's parser with 431, before any route runs. A whole request (head
    // and body) must arrive within REQUEST_TIMEOUT, its head (or a new connection's first byte) within HEADERS_TIMEOUT,
    // or Node answers 408 and closes (answerClientError); the checks run every second, so the bounds hold to one.
    http: { maxHeaderSize: config.maxHeaderBytes, headersTimeout: config.headersTimeoutSeconds * 1000, connectionsCheckingInterval: CHECKING_INTERVAL_MS },
    requestTimeout: config.requestTimeoutSeconds * 1000,
    // An idle keep-alive connection is closed after this: longer than a load balancer's own idle timeout (60 s on AWS
    // ALB, Google's and nginx's upstream pools less), so the balancer, not the service, ends it and never sends on a
    // connection the service is closing. Fastify's default, said here because it is a decision.
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    clientErrorHandler: answerClientError,
    // The client address (rate limits, logs) is the socket's, unless the connection comes from a listed proxy.
    trustProxy: config.trustedProxies.length > 0 ? config.trustedProxies : false,
    // Errors the router raises before any hook (a malformed percent-encoding, a path parameter over
    // maxParamLength) bypass the error handler: they get the same problem+json here.
    frameworkErrors: (error, _request, reply) => {
      const { problem: body, headers } = toProblem(error);
      void sendProblem(reply.headers(headers), body);
    },
  };
}

/**
 * Apart from the server's options (as fastify/demo does), so a test can register it on an instance
 * of its own that watches the routes being declared. fastify-plugin: it configures the root scope,
 * not a child one.
 */
export const httpInterface = fp(async function httpInterface(app: FastifyInstance, { container }: { container: AppContainer }) {
  const cradle = container.cradle;
  const { config } = cradle;

  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  refuseAmbiguousHeads(app);
  app.server.on('checkExpectation', answerUnmetExpectation);
  app.server.on('checkContinue', continueWithinLimit(app.server, config.bodyLimitBytes));
  app.server.on('connect', answerConnect);
  app.server.prependListener('request', trackAnswer);
  await app.register(connectionLimits, {
    maxConnections: config.maxConnections,
    perAddress: config.maxConnectionsPerAddress,
    trustedProxies: config.trustedProxies,
  });
  await app.register(connectionDraining, { shutdown: cradle.readiness });
  await app.register(methodNotAllowed);
  await app.register(anyOrigin);

  // JSON routes read JSON only: a text/plain body is 415 like any other media type, not a string the
  // schema then refuses with a confusing 400 (fastify parses text/plain by default).
  app.removeContentTypeParser('text/plain');
  readJsonBodies(app);
  refuseContentCodings(app);
  for (const schema of SHARED_SCHEMAS) app.addSchema(schema);
  registerValidators(app);
  registerErrorHandler(app);

  await app.register(observability, { metrics: cradle.metrics });
  if (config.revocationWindowSeconds > 0) await app.register(revocationWindow, { settle: () => cradle.revocationWatch.settle() });
  const headers = securityHeaders({ publicUrl: config.publicUrl });
  /** Where the API's answers say its resources are: under PUBLIC_URL's path. */
  const paths = { basePath: basePathOf(config.publicUrl) };
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(headers);
    done();
  });
  // Before any route: each throttled route gets its limit as it is declared.
  await registerRateLimits(app, config.rateLimits, counterRateLimitStore(cradle.rateLimitCounter, cradle.clock), { counter: cradle.rateLimitCounter, clock: cradle.clock });
  // Before any route too: the routes that check or hash a password take turns per client address.
  registerPasswordWorkAdmission(app, { hashingThreads: hashingThreads() });
  await app.register(swagger, openApiOptions(config));
  // Swagger UI's own policy asks for upgrade-insecure-requests; over plain HTTP (a trial on a LAN address) that sends
  // its scripts and styles to https:// on the same host, where nothing answers: dropped there, as the API's own is.
  const secure = new URL(config.publicUrl).protocol === 'https:';
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    staticCSP: true,
    transformStaticCSP: (header) => (secure ? header : header.replace(/\s*upgrade-insecure-requests;?/, '').trim()),
  });

  await app.register(authentication, {
    verificationKeys: cradle.verificationKeys,
    issuer: config.jwt.issuer,
    audience: config.jwt.audience,
    resolveActor: (token) => cradle.authenticateActor.execute(token),
  });

  await app.register(systemRoutes({ readiness: cradle.readiness, verificationKeys: cradle.verificationKeys }));
  // OAuth (#21): the token endpoint's grants, which discovery publishes as they are.
  const clientAuthentication: ClientAuthenticationDeps = {
    serviceAccountCredentials: cradle.serviceAccountCredentials,
    rateLimitCounter: cradle.rateLimitCounter,
    clock: cradle.clock,
    assertionAudience: { tokenEndpointUrl: `${config.publicUrl}${OAUTH_PATHS.token}`, issuer: config.jwt.issuer },
    failuresPerMinute: config.rateLimits.clientAuthFailuresPerMinute,
    auditRecorder: cradle.auditRecorder,
  };
  const grants = [
    refreshTokenGrant({ refreshSession: cradle.refreshSession, accessTokenTtlSeconds: config.jwt.ttlSeconds, clientAuthentication, tokenAudiences: cradle.tokenAudiences }),
    clientCredentialsGrant({ ...clientAuthentication, issueServiceToken: cradle.issueServiceToken }),
  ];
  const metadata = authorizationServerMetadata({
    issuer: config.jwt.issuer,
    publicUrl: config.publicUrl,
    algorithms: cradle.verificationKeys.map((key) => key.alg),
    grants,
    clientAssertionAlgorithms: CLIENT_ASSERTION_ALGORITHMS,
    scopes: Object.values(Permissions),
    tokenEndpoints: { revocationAuthMethods: REVOCATION_AUTH_METHODS, introspectionAuthMethods: INTROSPECTION_AUTH_METHODS },
  });
  await app.register(discoveryRoutes({ metadata }));
  await app.register(oauthTokenRoutes({ grants }));
  await app.register(
    oauthTokenManagementRoutes({
      revokeToken: cradle.revokeToken,
      introspectToken: cradle.introspectToken,
      // The token endpoint's client authentication and its budget of failures, shared (the same counters).
      ...clientAuthentication,
    }),
  );
  await app.register(
    pagesRoutes({ inspectInvitation: cradle.inspectInvitation, acceptInvitation: cradle.acceptInvitation, appUrl: config.appUrl, publicUrl: config.publicUrl }),
  );
  await app.register(
    passwordResetPagesRoutes({ inspectPasswordReset: cradle.inspectPasswordReset, confirmPasswordReset: cradle.confirmPasswordReset, publicUrl: config.publicUrl }),
  );
  await app.register(accountSecurityPageRoutes(paths));
  // The admin console (#25), built by npm run build into dist/console.
  await app.register(consoleRoutes({ bundle: loadConsoleBundle(consoleBundleDirectory()) }));

  await app.register(
    async (v1) => {
      // Every /v1 route but the public ones needs a bearer token, checked before the body is even parsed.
      v1.addHook('onRequest', async (request) => {
        if (!request.routeOptions.config?.public) await app.authenticate(request);
      });
      await v1.register(
        authRoutes({
          signIn: cradle.signIn,
          signOut: cradle.signOut,
          refreshSession: cradle.refreshSession,
          completeMfaSignIn: cradle.completeMfaSignIn,
          passkeySignInOptions: cradle.passkeySignInOptions,
        }),
      );
      await v1.register(
        consoleSessionRoutes({
          refreshSession: cradle.refreshSession,
          signOut: cradle.signOut,
          publicUrl: config.publicUrl,
          session: config.consoleSession,
        }),
      );
      await v1.register(
        passwordResetRoutes({
          requestPasswordReset: cradle.requestPasswordReset,
          confirmPasswordReset: cradle.confirmPasswordReset,
          databaseAnswers: () => cradle.readiness.databaseAnswers(),
        }),
      );
      await v1.register(accountRoutes({ getOwnAccount: cradle.getOwnAccount, changeOwnPassword: cradle.changeOwnPassword }));
      await v1.register(
        mfaRoutes({
          startTotpEnrollment: cradle.startTotpEnrollment,
          confirmTotpEnrollment: cradle.confirmTotpEnrollment,
          listOwnFactors: cradle.listOwnFactors,
          removeOwnTotp: cradle.removeOwnTotp,
          regenerateRecoveryCodes: cradle.regenerateRecoveryCodes,
          resetUserMfa: cradle.resetUserMfa,
        }),
      );
      await v1.register(
        passkeysRoutes({
          startPasskeyRegistration: cradle.startPasskeyRegistration,
          finishPasskeyRegistration: cradle.finishPasskeyRegistration,
          renamePasskey: cradle.renamePasskey,
          removeOwnPasskey: cradle.removeOwnPasskey,
        }),
      );
      await v1.register(usersRoutes({ listUsers: cradle.listUsers, inviteUser: cradle.inviteUser, paths }));
      await v1.register(
        userAdministrationRoutes({
          getUser: cradle.getUser,
          updateUser: cradle.updateUser,
          deactivateUser: cradle.deactivateUser,
          reactivateUser: cradle.reactivateUser,
          deleteUser: cradle.deleteUser,
        }),
      );
      await v1.register(permissionsRoutes({ listPermissions: cradle.listPermissions }));
      await v1.register(
        rolesRoutes({
          listRoles: cradle.listRoles,
          getRole: cradle.getRole,
          createRole: cradle.createRole,
          updateRole: cradle.updateRole,
          deleteRole: cradle.deleteRole,
          paths,
        }),
      );
      await v1.register(
        serviceAccountsRoutes({
          listServiceAccounts: cradle.listServiceAccounts,
          getServiceAccount: cradle.getServiceAccount,
          createServiceAccount: cradle.createServiceAccount,
          updateServiceAccount: cradle.updateServiceAccount,
          deleteServiceAccount: cradle.deleteServiceAccount,
          addServiceAccountSecret: cradle.addServiceAccountSecret,
          listServiceAccountSecrets: cradle.listServiceAccountSecrets,
          deleteServiceAccountSecret: cradle.deleteServiceAccountSecret,
          replaceServiceAccountKeys: cradle.replaceServiceAccountKeys,
          paths,
        }),
      );
      await v1.register(
        invitationsRoutes({
          acceptInvitation: cradle.acceptInvitation,
          resendInvitation: cradle.resendInvitation,
          revokeInvitation: cradle.revokeInvitation,
        }),
      );
      await v1.register(auditEventsRoutes({ listAuditEvents: cradle.listAuditEvents, exportAuditEvents: cradle.exportAuditEvents, paths }));
      // An unknown /v1 path: 401 without a valid token, 404 with one, so the API's shape is not probed anonymously.
      v1.setNotFoundHandler(async (request, reply) => {
        await app.authenticate(request);
        return sendProblem(reply, noRoute(request));
      });
    },
    { prefix: '/v1' },
  );

  app.setNotFoundHandler(async (request, reply) => sendProblem(reply, noRoute(request)));
});
