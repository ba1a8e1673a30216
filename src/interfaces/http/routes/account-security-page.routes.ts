import type { FastifyInstance } from 'fastify';
import { htmlResponse, sendPage } from '../pages/html-reply';
import { ACCOUNT_SECURITY_SCRIPT, renderAccountSecurityPage } from '../pages/account-security.page';
import { anyRequestProblems } from '../schemas';

/** GET /account/security (#24): one's passkeys and sign-in with a second factor, on a page of the service's own. */
export function accountSecurityPageRoutes(paths: { basePath: string } = { basePath: '' }) {
  const html = renderAccountSecurityPage(paths.basePath);
  return async (app: FastifyInstance): Promise<void> => {
    app.get(
      '/account/security',
      {
        schema: {
          operationId: 'showAccountSecurityPage',
          tags: ['mfa'],
          summary: 'A page to sign in (password, then a passkey or a code), register passkeys and see them (HTML)',
          description: 'Its script (`/account/security.js`) calls this API; the tokens stay in the script’s memory. WebAuthn needs the page at PUBLIC_URL’s origin.',
          security: [],
          response: { 200: htmlResponse('The page'), ...anyRequestProblems },
        },
      },
      async (_request, reply) => sendPage(reply, { status: 200, html }),
    );

    app.get('/account/security.js', { schema: { hide: true } }, async (_request, reply) =>
      reply.header('cache-control', 'public, max-age=300').type('text/javascript; charset=utf-8').send(ACCOUNT_SECURITY_SCRIPT),
    );
  };
}
