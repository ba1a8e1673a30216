import type { FastifyReply } from 'fastify';

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
