import rateLimit, { type FastifyRateLimitStoreCtor, normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest, onRequestHookHandler, preHandlerHookHandler } from 'fastify';
import { Email } from '../../../domain/users/email';
import { HttpProblemError } from '../problem';

/**
 * The budgets a route can spend; every route naming one shares it. Per address: one budget per
 * client address, looser than sign-in's per-account lockout, which it never replaces. Per inviter:
 * one budget per authenticated user, for the routes that send invitation mail.
 */
export type Throttle = 'address' | 'inviter' | 'reset-email' | 'address-unless-client';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The budget this route spends; its URL plays no part, so renaming the route keeps its limit. */
    throttle?: Throttle | Throttle[];
  }
}

export interface RateLimits {
  /** 0 turns the per-address limit off. */
  addressPerMinute: number;
  /** 0 turns the per-inviter limit off. */
  invitesPerMinute: number;
  /** Password-reset requests an hour per target e-mail, known or not (issue #10); 0 or absent: off. */
  passwordResetsPerEmailPerHour?: number;
}

type Limiter =
  | { hook: 'onRequest'; handler: onRequestHookHandler }
  | { hook: 'preHandler'; handler: preHandlerHookHandler };

/**
 * Attaches each route's limit from its `config.throttle`, so it must run before any route is
 * registered. Both limits count in the database, so replicas share them, and answer 429
 * problem+json with Retry-After.
 */
export async function registerRateLimits(app: FastifyInstance, limits: RateLimits, store: FastifyRateLimitStoreCtor): Promise<void> {
  await app.register(rateLimit, {
    global: false,
    store,
    errorResponseBuilder: (_request, context) =>
      new HttpProblemError('TOO_MANY_REQUESTS', `Too many requests; retry after ${context.after}`, {
        'retry-after': String(Math.max(1, Math.ceil(context.ttl / 1000))),
      }),
  });
  // Every limit counts in the one store: its keys carry the limit's name, so two limits never share a count.
  const limiters: Record<Throttle, Limiter | null> = {
    // Before the body is read: a flood of sign-ins costs no parsing, let alone password work.
    address:
      limits.addressPerMinute > 0
        ? {
            hook: 'onRequest',
            handler: app.rateLimit({
              max: limits.addressPerMinute,
              timeWindow: 60_000,
              hook: 'onRequest',
              keyGenerator: (request) => `address:${normalizeIP(request.ip)}`,
            }),
          }
        : null,
    // After authentication (the /v1 onRequest hook), so the key is the authenticated inviter.
    inviter:
      limits.invitesPerMinute > 0
        ? {
            hook: 'preHandler',
            handler: app.rateLimit({
              max: limits.invitesPerMinute,
              timeWindow: 60_000,
              hook: 'preHandler',
              keyGenerator: (request) => `inviter:${request.actor?.userId ?? request.ip}`,
            }),
          }
        : null,
    // After the body is parsed: the key is the target address (lower-cased), so a victim's mailbox is not
    // flooded from many client addresses. Unknown addresses count alike: a 429 says nothing about accounts.
    // A checker of its own, not `app.rateLimit`: the plugin runs one of its handlers per request, and the
    // per-address one ran already.
    'reset-email': (limits.passwordResetsPerEmailPerHour ?? 0) > 0 ? perEmailLimiter(app, limits.passwordResetsPerEmailPerHour!) : null,
    // The token endpoint: the per-address budget (the same count as `address`) for every grant but client credentials,
    // read after the form is. A service authenticating as itself is throttled on its failures only
    // (CLIENT_AUTH_RATE_LIMIT), as introspection is: its credentials cannot be guessed, and its token requests spent the
    // budget people at the same address sign in with (review N).
    'address-unless-client':
      limits.addressPerMinute > 0
        ? checkedLimiter(
            app,
            limits.addressPerMinute,
            60_000,
            (request) => `address:${normalizeIP(request.ip)}`,
            (request) => (request.body as { grant_type?: unknown } | undefined)?.grant_type !== 'client_credentials',
          )
        : null,
  };

  app.addHook('onRoute', (route) => {
    const throttles = route.config?.throttle;
    if (throttles === undefined) return;
    for (const throttle of Array.isArray(throttles) ? throttles : [throttles]) {
      // A name no limit answers to would leave the route unthrottled without a word: refuse to start instead.
      if (!Object.hasOwn(limiters, throttle)) throw new Error(`${route.method} ${route.url}: unknown throttle "${String(throttle)}"`);
      const limiter = limiters[throttle];
      if (!limiter) continue;
      const existing = route[limiter.hook];
      route[limiter.hook] = [...(Array.isArray(existing) ? existing : existing ? [existing] : []), limiter.handler] as typeof existing;
    }
  });
}

function perEmailLimiter(app: FastifyInstance, max: number): Limiter {
  return checkedLimiter(app, max, 3_600_000, (request) => {
    const email = (request.body as { email?: unknown } | undefined)?.email;
    // The address's key, so look-alike spellings of one address (case, accents) share one budget.
    return `reset-email:${typeof email === 'string' ? Email.normalize(email) : ''}`;
  });
}

/** A limit checked after the body is read (its key or whether it applies may depend on the body), for the requests `applies` to. */
function checkedLimiter(
  app: FastifyInstance,
  max: number,
  timeWindow: number,
  keyGenerator: (request: FastifyRequest) => string,
  applies: (request: FastifyRequest) => boolean = () => true,
): Limiter {
  const check = app.createRateLimit({ max, timeWindow, keyGenerator });
  const handler: preHandlerHookHandler = async (request) => {
    if (!applies(request)) return;
    const result = await check(request);
    if (result.isAllowed || !result.isExceeded) return;
    const seconds = Math.max(1, result.ttlInSeconds);
    // The headers say the limit that refused (the per-client limiter set its own, with budget left, before this one).
    throw new HttpProblemError('TOO_MANY_REQUESTS', `Too many requests; retry after ${seconds} seconds`, {
      'retry-after': String(seconds),
      'x-ratelimit-limit': String(max),
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': String(seconds),
    });
  };
  return { hook: 'preHandler', handler };
}
