import type { FastifyInstance } from 'fastify';
import type { ConfirmPasswordResetUseCase } from '../../../application/password-reset/confirm-password-reset.use-case';
import type { InspectPasswordResetUseCase, PasswordResetView } from '../../../application/password-reset/inspect-password-reset.use-case';
import { DomainError } from '../../../domain/shared/domain-error';
import { PASSWORD_MAX_LENGTH } from '../../../domain/users/password-policy';
import { toProblem } from '../error-handler';
import { FORM_MEDIA, readFormBodiesOnly } from '../form-body';
import { type FormBody, formField, htmlResponse, sendPage } from '../pages/html-reply';
import { basePathOf } from '../pages/page-layout';
import { PASSWORD_RESET_SCRIPT, renderPasswordResetPage, renderPasswordSetPage } from '../pages/password-reset.page';
import { anyRequestProblems, problemRef, problemResponse, throttledProblem, unavailableProblem } from '../schemas';


/** The page of a dead link with the verdict the use case gave. */
function deadLink(code: string, view: PasswordResetView): PasswordResetView {
  if (code === 'PASSWORD_RESET_USED' && view.status !== 'unknown') return { ...view, status: 'used' };
  if (code === 'PASSWORD_RESET_EXPIRED' && view.status !== 'unknown') return { ...view, status: 'expired' };
  return { status: 'unknown' };
}

/** GET /password-reset (the link's page) and POST /password-reset (its form without JavaScript, answering HTML). */
export function passwordResetPagesRoutes(deps: {
  inspectPasswordReset: InspectPasswordResetUseCase;
  confirmPasswordReset: ConfirmPasswordResetUseCase;
  /** PUBLIC_URL: the form posts under its path. */
  publicUrl: string;
}) {
  const basePath = basePathOf(deps.publicUrl);
  return async (app: FastifyInstance): Promise<void> => {
    readFormBodiesOnly(app);

    app.get<{ Querystring: { token?: string } }>(
      '/password-reset',
      {
        schema: {
          operationId: 'showPasswordResetPage',
          tags: ['auth'],
          summary: 'The page a password-reset link opens (HTML); reading it consumes nothing',
          security: [],
          querystring: { type: 'object', properties: { token: { type: 'string', maxLength: 200 } } },
          response: {
            200: htmlResponse('The form: the new password'),
            ...anyRequestProblems,
            404: htmlResponse('No reset link has this token (or none was given)'),
            410: htmlResponse('The link has expired, or has been used'),
            503: unavailableProblem,
          },
        },
      },
      async (request, reply) => {
        const token = request.query.token ?? '';
        return sendPage(reply, renderPasswordResetPage(await deps.inspectPasswordReset.execute(token), token, undefined, basePath));
      },
    );

    app.post<{ Body: FormBody }>(
      '/password-reset',
      {
        attachValidation: true,
        config: { throttle: 'address', passwordWork: true },
        schema: {
          operationId: 'submitPasswordResetForm',
          tags: ['auth'],
          summary: 'The reset page’s form, posted by a browser without JavaScript (answers HTML)',
          description:
            'What confirmPasswordReset does, answered with pages: password set (200), the form again with the problem (400), ' +
            'the link’s page (404, 410). Refusals before the form is read (413, 415, 429, 503) are problem+json.',
          security: [],
          consumes: [FORM_MEDIA],
          body: {
            type: 'object',
            required: ['token', 'password'],
            additionalProperties: false,
            properties: {
              token: { type: 'string', minLength: 1, maxLength: 200, description: 'The token of the link (a hidden field)' },
              password: { type: 'string', maxLength: PASSWORD_MAX_LENGTH },
            },
          },
          response: {
            200: htmlResponse('The password is set'),
            ...anyRequestProblems,
            400: {
              description: 'The form again, with the problem (text/html); problem+json when the request could not be read at all',
              content: { 'text/html': { schema: { type: 'string' } }, 'application/problem+json': { schema: problemRef } },
            },
            404: htmlResponse('No reset link has this token: the page the link shows'),
            410: htmlResponse('The link has expired, or has been used: the page the link shows'),
            413: problemResponse('The body is larger than BODY_LIMIT'),
            415: problemResponse('The body is not a form (only `application/x-www-form-urlencoded` is read)'),
            429: throttledProblem,
            503: unavailableProblem,
          },
        },
      },
      async (request, reply) => {
        const token = formField(request.body, 'token');
        const refusedForm = async (problem: { status: number; code: string; detail?: string; errors?: { field: string; message: string }[] }) => {
          const message = problem.errors?.map((p) => `${p.field === 'password' ? 'Password' : p.field} ${p.message}`).join('; ') || problem.detail || 'Something went wrong.';
          return renderPasswordResetPage(await deps.inspectPasswordReset.execute(token), token, { status: problem.status, code: problem.code, message }, basePath);
        };
        if (request.validationError) return sendPage(reply, await refusedForm(toProblem(request.validationError).problem));
        try {
          await deps.confirmPasswordReset.execute({ token, password: formField(request.body, 'password') });
          return sendPage(reply, renderPasswordSetPage());
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
          const { problem } = toProblem(error);
          if (problem.status === 400) return sendPage(reply, await refusedForm(problem));
          if (problem.status === 404 || problem.status === 410) {
            return sendPage(reply, renderPasswordResetPage(deadLink(problem.code, await deps.inspectPasswordReset.execute(token)), token, undefined, basePath));
          }
          throw error;
        }
      },
    );

    app.get('/password-reset.js', { schema: { hide: true } }, async (_request, reply) =>
      reply.header('cache-control', 'public, max-age=300').type('text/javascript; charset=utf-8').send(PASSWORD_RESET_SCRIPT),
    );
  };
}
