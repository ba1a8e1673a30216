import { randomUUID } from 'node:crypto';
import helmet from '@fastify/helmet';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { AppContainer } from '../../infrastructure/container';
import { registerErrorHandler, sendProblem } from './error-handler';
import authentication from './plugins/authentication';
import { problem } from './problem';
import { authRoutes } from './routes/auth.routes';
import { invitationsRoutes } from './routes/invitations.routes';
import { pagesRoutes } from './routes/pages.routes';
import { permissionsRoutes } from './routes/permissions.routes';
import { systemRoutes } from './routes/system.routes';
import { usersRoutes } from './routes/users.routes';
import { SHARED_SCHEMAS } from './schemas';
import { registerValidators } from './validation';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The HTTP interface, wired from the process's container. */
export async function buildHttpApp(container: AppContainer): Promise<FastifyInstance> {
  const { config, logger } = container.cradle;

  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    bodyLimit: config.bodyLimitBytes,
    // A client's x-request-id is kept when it is a sane token; otherwise we mint one.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    routerOptions: { maxParamLength: 200, ignoreTrailingSlash: true },
  });

  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  for (const schema of SHARED_SCHEMAS) app.addSchema(schema);
  registerValidators(app);
  registerErrorHandler(app);

  await app.register(helmet, { global: true });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Access Control',
        version: '1.0.0',
        description: 'Users, roles and permissions: sign-in, user list, invitations, permission list.',
      },
      components: {
        securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });

  const cradle = container.cradle;
  await app.register(authentication, {
    signingKey: cradle.signingKey,
    issuer: config.jwt.issuer,
    audience: config.jwt.audience,
    resolveActor: (subject) => cradle.authenticateActor.execute(subject),
  });

  await app.register(systemRoutes({ readiness: cradle.readiness, signingKey: cradle.signingKey }));
  await app.register(pagesRoutes({ inspectInvitation: cradle.inspectInvitation }));

  await app.register(
    async (v1) => {
      // Every /v1 route but the public ones needs a bearer token, checked before the body is even parsed.
      v1.addHook('onRequest', async (request) => {
        if (!request.routeOptions.config?.public) await app.authenticate(request);
      });
      await v1.register(authRoutes({ signIn: cradle.signIn }));
      await v1.register(usersRoutes({ listUsers: cradle.listUsers, inviteUser: cradle.inviteUser }));
      await v1.register(permissionsRoutes({ listPermissions: cradle.listPermissions }));
      await v1.register(
        invitationsRoutes({
          acceptInvitation: cradle.acceptInvitation,
          resendInvitation: cradle.resendInvitation,
          revokeInvitation: cradle.revokeInvitation,
        }),
      );
      // An unknown /v1 path: 401 without a valid token, 404 with one, so the API's shape is not probed anonymously.
      v1.setNotFoundHandler(async (request, reply) => {
        await app.authenticate(request);
        return sendProblem(reply, problem('NOT_FOUND', `No route ${request.method} ${request.url}`));
      });
    },
    { prefix: '/v1' },
  );

  app.setNotFoundHandler(async (request, reply) =>
    sendProblem(reply, problem('NOT_FOUND', `No route ${request.method} ${request.url}`)),
  );

  return app;
}
