import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { AUDIT_PAGE_SIZE_MAX, type ExportAuditEventsUseCase, type ListAuditEventsUseCase } from '../../../application/audit/read-audit-events.use-case';
import type { AuditFilter, AuditPosition } from '../../../application/ports/audit-trail.port';
import type { AuditEntry } from '../../../domain/audit/audit-entry';
import { toAuditEventView } from '../../../application/audit/audit-event.view';
import { ValidationError } from '../../../domain/shared/domain-error';
import { strictIntegerQuery } from '../plugins/strict-integers';
import { permissionProblem, protectedProblems } from '../schemas';
import { auditEvent, auditFilterProperties, type AuditQuery } from './audit-events.schemas';
import { linkNext, nextPagePath, type PublicPaths } from './public-paths';

const DEFAULT_PAGE_SIZE = 50;

/** GET /v1/audit-events and its NDJSON export (#23): who did what to whom, when, from where. */
export function auditEventsRoutes(deps: { listAuditEvents: ListAuditEventsUseCase; exportAuditEvents: ExportAuditEventsUseCase; paths: PublicPaths }) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get<{ Querystring: AuditQuery & { page_size?: number; cursor?: string } }>(
      '/audit-events',
      {
        preValidation: strictIntegerQuery(['page_size']),
        schema: {
          operationId: 'listAuditEvents',
          tags: ['audit'],
          summary: 'The audit trail, newest first, a page at a time; follow `next` for the page after (needs audit:read)',
          security: [{ bearerAuth: [] }],
          querystring: {
            type: 'object',
            additionalProperties: false,
            properties: {
              ...auditFilterProperties,
              page_size: { type: 'integer', minimum: 1, maximum: AUDIT_PAGE_SIZE_MAX, default: DEFAULT_PAGE_SIZE, description: `Entries per page, 1 to ${AUDIT_PAGE_SIZE_MAX}` },
              cursor: { type: 'string', minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9_-]+$', description: 'The `next` of the page before' },
            },
          },
          response: {
            200: {
              type: 'object',
              required: ['audit_events', 'next'],
              headers: { link: { type: 'string', description: 'RFC 8288: `<…?cursor=…>; rel="next"` (the same filters and `page_size`) while entries follow, as the user list answers' } },
              properties: {
                audit_events: { type: 'array', items: auditEvent },
                next: { type: ['string', 'null'], description: 'The `cursor` of the next page; null on the last one' },
              },
            },
            ...protectedProblems,
            403: permissionProblem,
          },
        },
      },
      async (request, reply) => {
        const { page_size: pageSize = DEFAULT_PAGE_SIZE, cursor } = request.query;
        const page = await deps.listAuditEvents.execute({
          actor: await app.authenticate(request),
          filter: toFilter(request.query),
          pageSize,
          ...(cursor === undefined ? {} : { after: decodeCursor(cursor) }),
        });
        const next = page.next ? encodeCursor(page.next) : null;
        if (next !== null) linkNext(reply, nextPage(deps.paths, request.query, next));
        return { audit_events: page.entries.map(toAuditEventView), next };
      },
    );

    app.get<{ Querystring: AuditQuery }>(
      '/audit-events/export',
      {
        schema: {
          operationId: 'exportAuditEvents',
          tags: ['audit'],
          summary: 'Every entry from `from` (to `to`, or now), oldest first, one JSON object a line, streamed: for a SIEM (needs audit:read)',
          security: [{ bearerAuth: [] }],
          querystring: { type: 'object', additionalProperties: false, required: ['from'], properties: auditFilterProperties },
          response: {
            200: {
              description: 'Newline-delimited JSON: one audit event (as in the list) a line',
              content: { 'application/x-ndjson': { schema: { type: 'string' } } },
            },
            ...protectedProblems,
            403: permissionProblem,
          },
        },
      },
      async (request, reply) => {
        const entries = deps.exportAuditEvents.execute({ actor: await app.authenticate(request), filter: toFilter(request.query) });
        reply.type('application/x-ndjson; charset=utf-8').header('cache-control', 'no-store');
        return reply.send(Readable.from(lines(entries)));
      },
    );
  };
}

async function* lines(entries: AsyncIterable<AuditEntry>): AsyncIterable<string> {
  for await (const entry of entries) yield `${JSON.stringify(toAuditEventView(entry))}\n`;
}

function toFilter(query: AuditQuery): AuditFilter {
  const from = query.from === undefined ? undefined : instantOf('from', query.from);
  const to = query.to === undefined ? undefined : instantOf('to', query.to);
  if (from !== undefined && to !== undefined && from > to) throw new ValidationError([{ field: 'to', message: 'must not be before from' }]);
  return {
    ...(query.actor !== undefined ? { actorId: query.actor } : {}),
    ...(query.target !== undefined ? { targetId: query.target } : {}),
    ...(query.action !== undefined ? { actionPrefix: query.action } : {}),
    ...(query.outcome !== undefined ? { outcome: query.outcome } : {}),
    ...(query.request_id !== undefined ? { requestId: query.request_id } : {}),
    ...(from !== undefined ? { from } : {}),
    ...(to !== undefined ? { to } : {}),
  };
}

/**
 * An RFC 3339 time the schema let through, in ms. A leap second (`23:59:60`, which `Date.parse` reads as nothing) is
 * the instant after `23:59:59`, as POSIX time counts it; anything else `Date.parse` cannot read is a 400, never a
 * filter that silently matches nothing.
 */
function instantOf(field: string, text: string): number {
  const leap = /^(.*T\d\d:\d\d:)60(\.\d+)?(.*)$/i.exec(text);
  const ms = leap ? Date.parse(`${leap[1]}59${leap[2] ?? ''}${leap[3]}`) + 1000 : Date.parse(text);
  if (!Number.isFinite(ms)) throw new ValidationError([{ field, message: 'is not a time this service can read' }]);
  return ms;
}

/** The next page's path: the same filters and page size, and the cursor. */
function nextPage(paths: PublicPaths, query: object, cursor: string): string {
  const parameters = new URLSearchParams();
  for (const [name, value] of Object.entries(query as Record<string, unknown>)) if (name !== 'cursor' && value !== undefined) parameters.set(name, String(value));
  parameters.set('cursor', cursor);
  return nextPagePath(paths, '/v1/audit-events', parameters);
}

/** A page's end as the client carries it: opaque, base64url of `<ms>.<id>`. */
function encodeCursor(position: AuditPosition): string {
  return Buffer.from(`${position.occurredAt}.${position.id}`, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): AuditPosition {
  const match = /^(\d{1,15})\.([\x21-\x7e]{1,64})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw new ValidationError([{ field: 'cursor', message: 'is not a cursor this API handed out' }]);
  return { occurredAt: Number(match[1]), id: match[2]! };
}
