import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet from 'helmet';

/**
 * The headers helmet's defaults set (Content-Security-Policy, Strict-Transport-Security,
 * X-Content-Type-Options, X-Frame-Options, Cross-Origin-*-Policy, Referrer-Policy, …), worked out
 * once. They are the same for every response, and running the helmet middleware per request
 * re-renders its policy strings each time (a visible share of a user-list request's CPU).
 * /docs replaces the Content-Security-Policy with Swagger UI's own (its staticCSP option).
 */
export function securityHeaders(): Readonly<Record<string, string>> {
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
  helmet()({} as IncomingMessage, response as unknown as ServerResponse, (error?: unknown) => {
    failure = error;
  });
  if (failure) throw failure;
  return Object.freeze(headers);
}
