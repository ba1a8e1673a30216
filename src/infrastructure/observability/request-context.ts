import { AsyncLocalStorage } from 'node:async_hooks';

/** What follows a request through its async work: the id it carries in `x-request-id`. */
export interface RequestContext {
  requestId: string;
  /** The client's address as the proxy settings resolve it (fastify's `request.ip`), for the audit trail. */
  address?: string;
  userAgent?: string;
  /**
   * Who asked, once authenticated: the user's id, or the service account's client id. Scarce work (a prefix search's
   * statements) is shared out in turn between parties (ConnectionTurns), so one caller cannot hold it all.
   */
  party?: string;
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

/** Who the request whose async work this is comes from: its authenticated party, else its address; '' outside a request. */
export function currentParty(): string {
  const context = requestContext.getStore();
  return context?.party ?? (context?.address === undefined ? '' : `address:${context.address}`);
}
