import { AsyncLocalStorage } from 'node:async_hooks';

/** What follows a request through its async work: the id it carries in `x-request-id`. */
export interface RequestContext {
  requestId: string;
  /** The client's address as the proxy settings resolve it (fastify's `request.ip`), for the audit trail. */
  address?: string;
  userAgent?: string;
  /** Set once the request has moved a revocation epoch on: its answer waits out the revocation window (#26). */
  revoking?: boolean;
}

/**
 * Set by the HTTP edge for the life of a request, read by adapters that must carry the id on
 * (the outbox row, hence the event's `requestid` and its Kafka `x-request-id` header; log lines).
 */
export const requestContext = new AsyncLocalStorage<RequestContext>();

export function currentRequestId(): string | undefined {
  return requestContext.getStore()?.requestId;
}
