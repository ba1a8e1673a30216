import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet from 'helmet';

/**
 * The headers helmet's defaults set (Content-Security-Policy, Strict-Transport-Security,
 * X-Content-Type-Options, X-Frame-Options, Cross-Origin-*-Policy, Referrer-Policy, …), worked out
 * once. They are the same for every response, and running the helmet middleware per request
 * re-renders its policy strings each time (a visible share of a user-list request's CPU).
 * /docs replaces the Content-Security-Policy with Swagger UI's own (its staticCSP option).
 * `upgrade-insecure-requests` and Strict-Transport-Security are sent only when `publicUrl` is https.
 */
export function securityHeaders(options: { publicUrl: string }): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  const response = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()];
    },
  };
  let failure: unknown;
  // Served over plain HTTP (PUBLIC_URL http:, a trial on a LAN address), `upgrade-insecure-requests` would send the
  // pages' own scripts to https:// on the same host, where nothing answers (browsers exempt only localhost), and a
  // browser ignores HSTS over HTTP anyway: both only where the public URL is https.
  const secure = new URL(options.publicUrl).protocol === 'https:';
  const policy = secure ? {} : { contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } }, strictTransportSecurity: false };
  helmet(policy)({} as IncomingMessage, response as unknown as ServerResponse, (error?: unknown) => {
    failure = error;
  });
  if (failure) throw failure;
  return Object.freeze(headers);
}
