import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AcceptInvitationUseCase } from '../../../application/invitations/accept-invitation.use-case';
import type { InspectInvitationUseCase, InvitationView } from '../../../application/invitations/inspect-invitation.use-case';
import { DomainError } from '../../../domain/shared/domain-error';
import { PASSWORD_MAX_LENGTH } from '../../../domain/users/password-policy';
import { toProblem } from '../error-handler';
import { FORM_MEDIA } from '../form-body';
import { type FormBody, formField, htmlResponse, type Page, sendPage } from '../pages/html-reply';
import { type AcceptPageSettings, renderAcceptInvitationPage, renderJoinedPage } from '../pages/accept-invitation.page';
import { formProblems } from '../pages/accept-invitation.problems';
import type { Problem } from '../problem';
import { anyRequestProblems, problemRef, problemResponse, throttledProblem, unavailableProblem } from '../schemas';


/** The page of a dead link, with the status the use case gave: the view's data, the error's verdict. */
function deadLink(code: string, view: InvitationView): InvitationView {
  if (code === 'INVITATION_USED' && view.status !== 'unknown') return { ...view, status: 'used' };
  if (code === 'INVITATION_EXPIRED' && view.status !== 'unknown') return { ...view, status: 'expired' };
  return { status: 'unknown' };
}

/**
 * POST /invitations/accept: the invitation page's form posted by a browser without JavaScript. The same
 * use case and the same per-address budget as POST /v1/invitations/accept, answered with pages instead
 * of JSON: joined (200), the form again with each problem at its field (400, 409), the link's page (404,
 * 410). What the error handler answers before the handler runs (413, 415, 429, 503) stays problem+json.
 */
export function acceptInvitationFormRoutes(deps: {
  acceptInvitation: AcceptInvitationUseCase;
  inspectInvitation: InspectInvitationUseCase;
  settings: AcceptPageSettings;
}) {
  /** The form again with the problems; a link that cannot be used shows its own page instead, as the fields would not help. */
  async function refusedForm(request: FastifyRequest<{ Body: FormBody }>, problem: Problem): Promise<Page> {
    const token = formField(request.body, 'token');
    const view = await deps.inspectInvitation.execute(token);
    return renderAcceptInvitationPage(view, token, deps.settings, {
      status: problem.status,
      name: formField(request.body, 'name'),
      username: formField(request.body, 'username'),
      ...formProblems(problem),
    });
  }

  async function answer(request: FastifyRequest<{ Body: FormBody }>): Promise<Page> {
    if (request.validationError) return refusedForm(request, toProblem(request.validationError).problem);
    const input = { token: formField(request.body, 'token'), name: formField(request.body, 'name'), username: formField(request.body, 'username'), password: formField(request.body, 'password') };
    try {
      await deps.acceptInvitation.execute(input);
      return renderJoinedPage(input.username, deps.settings);
    } catch (error) {
      // Anything but a business refusal (the database away, a fault) goes to the error handler.
      if (!(error instanceof DomainError)) throw error;
      const { problem } = toProblem(error);
      if (problem.status === 400 || problem.status === 409) return refusedForm(request, problem);
      if (problem.status === 404 || problem.status === 410) {
        return renderAcceptInvitationPage(deadLink(problem.code, await deps.inspectInvitation.execute(input.token)), input.token, deps.settings);
      }
      throw error;
    }
  }

  return async (app: FastifyInstance): Promise<void> => {
    app.post<{ Body: FormBody }>(
      '/invitations/accept',
      {
        // A refused body is answered by the handler with the form again, not by the error handler with problem+json.
        attachValidation: true,
        config: {
          // The same budget as the JSON accept route: the form is no way around it.
          throttle: 'address', passwordWork: true,
          outcome: (status, metrics) => {
            if (status === 200) metrics.invitationAccepted();
          },
        },
        schema: {
          operationId: 'submitAcceptInvitationForm',
          tags: ['invitations'],
          summary: 'The invitation page’s form, posted by a browser without JavaScript (answers HTML)',
          description:
            'What acceptInvitation does, for the page’s own form: with JavaScript the page posts the JSON API instead. ' +
            'Answers are pages with the status acceptInvitation would give: joined (200), the form again with each problem at its field ' +
            '(400, 409), the link’s page (404, 410). A link that cannot be used answers its 404/410 page even when fields are refused too. ' +
            'Refusals before the form is read (413, 415, 429, 503) are problem+json.',
          security: [],
          consumes: [FORM_MEDIA],
          body: {
            type: 'object',
            required: ['token', 'name', 'username', 'password'],
            additionalProperties: false,
            properties: {
              token: { type: 'string', minLength: 1, maxLength: 200, description: 'The token of the invitation link (a hidden field)' },
              name: { type: 'string', maxLength: 200 },
              username: { type: 'string', maxLength: 64 },
              password: { type: 'string', maxLength: PASSWORD_MAX_LENGTH },
            },
          },
          response: {
            200: htmlResponse('Joined: the page says what to do next (with a link to APP_URL when it is set)'),
            ...anyRequestProblems,
            400: {
              description:
                'The form again, each problem at its field (text/html); problem+json when the request could not be read at all (before any route runs)',
              content: { 'text/html': { schema: { type: 'string' } }, 'application/problem+json': { schema: problemRef } },
            },
            404: htmlResponse('No invitation has this token: the page the link shows'),
            409: htmlResponse('The username is taken: the form again, saying so at the username'),
            410: htmlResponse('The invitation has expired, or has been used: the page the link shows'),
            413: problemResponse('The body is larger than BODY_LIMIT'),
            415: problemResponse('The body is not a form (only `application/x-www-form-urlencoded` is read)'),
            429: throttledProblem,
            503: unavailableProblem,
          },
        },
      },
      async (request, reply) => {
        const page = await answer(request);
        if (page.status !== 200) request.log.info({ status: page.status }, 'request refused');
        return sendPage(reply, page);
      },
    );
  };
}
