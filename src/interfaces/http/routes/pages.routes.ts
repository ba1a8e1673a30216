import type { FastifyInstance } from 'fastify';
import type { InspectInvitationUseCase } from '../../../application/invitations/inspect-invitation.use-case';
import { ACCEPT_INVITATION_SCRIPT, renderAcceptInvitationPage } from '../pages/accept-invitation.page';

export function pagesRoutes(deps: { inspectInvitation: InspectInvitationUseCase }) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get<{ Querystring: { token?: string } }>(
      '/invitations/accept',
      {
        schema: {
          tags: ['invitations'],
          summary: 'The page an invitation link opens (HTML); reading it consumes nothing',
          querystring: { type: 'object', properties: { token: { type: 'string', maxLength: 200 } } },
        },
      },
      async (request, reply) => {
        const token = request.query.token ?? '';
        const { status, html } = renderAcceptInvitationPage(await deps.inspectInvitation.execute(token), token);
        return reply
          .code(status)
          .header('cache-control', 'no-store')
          .header('referrer-policy', 'no-referrer')
          .type('text/html; charset=utf-8')
          .send(html);
      },
    );

    // Browsers ask for it with every page; an empty answer beats a 404 in their console.
    app.get('/favicon.ico', { schema: { hide: true } }, async (_request, reply) =>
      reply.code(204).header('cache-control', 'public, max-age=86400').send(),
    );

    app.get('/invitations/accept.js', { schema: { hide: true } }, async (_request, reply) =>
      reply.header('cache-control', 'public, max-age=300').type('text/javascript; charset=utf-8').send(ACCEPT_INVITATION_SCRIPT),
    );
  };
}
