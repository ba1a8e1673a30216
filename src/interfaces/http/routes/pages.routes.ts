import type { FastifyInstance } from 'fastify';
import type { AcceptInvitationUseCase } from '../../../application/invitations/accept-invitation.use-case';
import type { InspectInvitationUseCase } from '../../../application/invitations/inspect-invitation.use-case';
import { readFormBodiesOnly } from '../form-body';
import { htmlResponse, sendPage } from '../pages/html-reply';
import { basePathOf } from '../pages/page-layout';
import { ACCEPT_INVITATION_SCRIPT, renderAcceptInvitationPage } from '../pages/accept-invitation.page';
import { anyRequestProblems, unavailableProblem } from '../schemas';
import { acceptInvitationFormRoutes } from './accept-invitation-form.routes';


/** `appUrl`: where the page sends a person once joined (APP_URL); null when not configured. `publicUrl`: PUBLIC_URL. */
export function pagesRoutes(deps: {
  inspectInvitation: InspectInvitationUseCase;
  acceptInvitation: AcceptInvitationUseCase;
  appUrl: string | null;
  publicUrl: string;
}) {
  const settings = { appUrl: deps.appUrl, basePath: basePathOf(deps.publicUrl) };
  return async (app: FastifyInstance): Promise<void> => {
    // The pages read the invitation form's body, and no JSON: this plugin's scope only.
    readFormBodiesOnly(app);

    app.get<{ Querystring: { token?: string } }>(
      '/invitations/accept',
      {
        schema: {
          operationId: 'showAcceptInvitationPage',
          tags: ['invitations'],
          summary: 'The page an invitation link opens (HTML); reading it consumes nothing',
          description: 'A form for a link that can be used; otherwise a page that says why not, with the status of the API’s answer.',
          security: [],
          querystring: { type: 'object', properties: { token: { type: 'string', maxLength: 200 } } },
          response: {
            200: htmlResponse('The form: name, username, password'),
            ...anyRequestProblems,
            404: htmlResponse('No invitation has this token (or none was given)'),
            410: htmlResponse('The invitation has expired, or has been used'),
            503: unavailableProblem,
          },
        },
      },
      async (request, reply) => {
        const token = request.query.token ?? '';
        return sendPage(reply, renderAcceptInvitationPage(await deps.inspectInvitation.execute(token), token, settings));
      },
    );

    await app.register(acceptInvitationFormRoutes({ acceptInvitation: deps.acceptInvitation, inspectInvitation: deps.inspectInvitation, settings }));

    // Browsers ask for it with every page; an empty answer beats a 404 in their console.
    app.get('/favicon.ico', { schema: { hide: true } }, async (_request, reply) =>
      reply.code(204).header('cache-control', 'public, max-age=86400').send(),
    );

    app.get('/invitations/accept.js', { schema: { hide: true } }, async (_request, reply) =>
      reply.header('cache-control', 'public, max-age=300').type('text/javascript; charset=utf-8').send(ACCEPT_INVITATION_SCRIPT),
    );
  };
}
