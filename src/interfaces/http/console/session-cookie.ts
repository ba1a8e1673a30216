import type { FastifyRequest } from 'fastify';
import { HttpProblemError } from '../problem';

/**
 * The console's session (#25): its refresh token lives in this cookie only, `HttpOnly` (no page script reads
 * it), `SameSite=Strict`, `Secure` when the service is reached over https, and scoped to the one path of the
 * console-session routes, so no other request of the origin carries it. Not `__Host-`: that prefix requires
 * `Path=/`, which would send the token with every request of the origin.
 */
export const CONSOLE_SESSION_PATH = '/v1/auth/console-session';
export const CONSOLE_SESSION_COOKIE = 'ac_console_session';
/** The header the console sends on every console-session request (the CSRF defence's first half). */
export const CONSOLE_HEADER = 'x-console-session';

export function sessionCookie(token: string, options: { secure: boolean; maxAgeSeconds: number }): string {
  return [
    `${CONSOLE_SESSION_COOKIE}=${token}`,
    `Path=${CONSOLE_SESSION_PATH}`,
    `Max-Age=${options.maxAgeSeconds}`,
    'HttpOnly',
    'SameSite=Strict',
    ...(options.secure ? ['Secure'] : []),
  ].join('; ');
}

export function clearedSessionCookie(secure: boolean): string {
  return sessionCookie('', { secure, maxAgeSeconds: 0 });
}

/** The refresh token of the `Cookie` header, or null; a malformed value is as good as none. */
export function sessionCookieValue(header: string | undefined): string | null {
  for (const pair of (header ?? '').split(';')) {
    const at = pair.indexOf('=');
    if (at < 0 || pair.slice(0, at).trim() !== CONSOLE_SESSION_COOKIE) continue;
    const value = pair.slice(at + 1).trim();
    return /^[A-Za-z0-9_-]{1,128}$/.test(value) ? value : null;
  }
  return null;
}

/** https to the client: the request's own scheme (a trusted proxy's X-Forwarded-Proto included) or PUBLIC_URL's. */
export function reachedOverHttps(request: FastifyRequest, publicUrl: string): boolean {
  return request.protocol === 'https' || publicUrl.startsWith('https:');
}

/**
 * The CSRF defence's second half (the first: SameSite=Strict, and the custom header, which no cross-site form or
 * simple request can send without a CORS preflight this service never grants). A browser that says where the
 * request comes from must say this origin: `Sec-Fetch-Site` `same-origin`, and an `Origin` equal to the request's
 * own origin or PUBLIC_URL's. A client that sends neither (curl, a test) is no browser a site can drive.
 */
export function assertSameOrigin(request: FastifyRequest, publicUrl: string): void {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') throw crossSite(`Sec-Fetch-Site is ${String(site)}`);
  const origin = request.headers.origin;
  if (origin === undefined) return;
  const own = [`${request.protocol}://${request.host}`, new URL(publicUrl).origin];
  if (!own.includes(origin)) throw crossSite('Origin is not this service');
}

function crossSite(why: string): HttpProblemError {
  return new HttpProblemError('CROSS_SITE_REQUEST', `The console session answers only the console of this origin (${why})`);
}
