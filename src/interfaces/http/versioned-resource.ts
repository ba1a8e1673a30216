import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * What the routes of a resource with an optimistic version (a user, a role) share: its version as a
 * strong entity tag in `ETag`, and `If-Match` on a change. `If-Match` takes one strong tag as `ETag`
 * gives it, or `*` (any version). Weak tags and lists are refused (400): a change is either made
 * against the version the client read or against whatever is there.
 */
export type VersionedParams = { Params: { id: string }; Headers: { 'if-match'?: string } };

/** The `ETag` response header and the `If-Match` request header of `noun`, whose stale tag is answered `conflictCode`. */
export function versionHeaders(noun: string, conflictCode: string) {
  const etag = {
    etag: { type: 'string', description: `The ${noun}’s version, \`"<version>"\`: send it back in \`If-Match\` to change exactly what you read` },
  } as const;
  const ifMatch = {
    type: 'object',
    properties: {
      'if-match': {
        type: 'string',
        maxLength: 17,
        pattern: '^(\\*|"[1-9][0-9]{0,14}")$',
        description: `The \`ETag\` the client read: a change of the ${noun} since then is refused with 409 ${conflictCode}`,
      },
    },
  } as const;
  return { etag, ifMatch };
}

/** The version `If-Match` names; none for `*` or no header (the schema has refused any other shape). */
export function expectedVersion(request: FastifyRequest<VersionedParams>): number | undefined {
  const tag = request.headers['if-match'];
  return tag === undefined || tag === '*' ? undefined : Number(tag.slice(1, -1));
}

/** Answers `body` with its version as `ETag`. */
export function sendVersioned(reply: FastifyReply, body: unknown, version: number): FastifyReply {
  return reply.header('etag', `"${version}"`).send(body);
}
