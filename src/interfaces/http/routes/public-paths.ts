import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, HTTPMethods } from 'fastify';

/**
 * The API's paths as its answers name them (`Location`, `Link`, a page's `next`): under PUBLIC_URL's path (`basePathOf`:
 * '' at the root, `/auth` for https://example.com/auth, which a proxy strips before the service), so a client behind
 * that proxy requests what it is given as it is.
 */
export interface PublicPaths {
  /** PUBLIC_URL's path, without a trailing slash. */
  basePath: string;
}

/** `/v1…` under PUBLIC_URL's path. */
export function apiPath(paths: PublicPaths, path: `/v1/${string}`): string {
  return `${paths.basePath}${path}`;
}

/** `path` with `query`, under PUBLIC_URL's path: the next page, as its `Link` header and its `next` field name it. */
export function nextPagePath(paths: PublicPaths, path: `/v1/${string}`, query: URLSearchParams): string {
  return `${apiPath(paths, path)}?${query.toString()}`;
}

/** The RFC 8288 `Link` header of a page with a next one. */
export function linkNext(reply: FastifyReply, next: string): FastifyReply {
  return reply.header('link', `<${next}>; rel="next"`);
}

/**
 * Fastify's `rewriteUrl` for a PUBLIC_URL with a path (`/auth`): a request that still carries it (a proxy that forwards
 * the prefix rather than strip it) is routed without it, so every route answers under PUBLIC_URL's path as at the
 * root, the OAuth endpoints and the JWK set as much as discovery. A path that has a route of its own (OpenID
 * Discovery's appended form, `/auth/.well-known/openid-configuration`) is left as it is. None without a path.
 */
export function publicPathRewrite(basePath: string): ((this: FastifyInstance, request: IncomingMessage) => string) | undefined {
  if (basePath === '') return undefined;
  return function stripPublicPath(this: FastifyInstance, request: IncomingMessage): string {
    const url = request.url ?? '/';
    const [path = ''] = url.split('?', 1);
    if (path !== basePath && !path.startsWith(`${basePath}/`)) return url;
    if (this.findRoute({ method: (request.method ?? 'GET') as HTTPMethods, url: path })) return url;
    const rest = url.slice(basePath.length);
    return rest.startsWith('/') ? rest : `/${rest}`;
  };
}
