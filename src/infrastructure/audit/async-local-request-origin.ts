import type { Origin, RequestOrigin } from '../../application/ports/request-origin.port';
import { requestContext } from '../observability/request-context';

const NOWHERE: Origin = Object.freeze({ requestId: null, address: null, userAgent: null });

/** The origin the HTTP edge set for the request whose async work this is (AsyncLocalStorage). */
export class AsyncLocalRequestOrigin implements RequestOrigin {
  current(): Origin {
    const context = requestContext.getStore();
    if (!context) return NOWHERE;
    return { requestId: context.requestId, address: context.address ?? null, userAgent: context.userAgent ?? null };
  }
}
