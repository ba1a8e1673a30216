import rateLimit, { type FastifyRateLimitStoreCtor, normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest, onRequestHookHandler, onSendHookHandler, preHandlerHookHandler } from 'fastify';
import type { Clock } from '../../../application/ports/clock.port';
import type { RateLimitCounter } from '../../../application/ports/rate-limit-counter.port';
import { Email } from '../../../domain/users/email';
import { HttpProblemError } from '../problem';

/**
 * The budgets a route can spend; every route naming one shares it. Per address: one budget per
 * client address, looser than sign-in's per-account lockout, which it never replaces. Per inviter:
 * one budget per authenticated user, for the routes that send invitation mail. Per address, failures only
 * (`address-failures`, and `address-failures-unless-client` at the token endpoint): the routes whose success proves
 * a secret nobody guesses (a refresh token, the console's session cookie).
 */
export type Throttle = 'address' | 'inviter' | 'reset-email' | 'address-failures' | 'address-failures-unless-client';

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

type Limiter = ({ hook: 'onRequest'; handler: onRequestHookHandler } | { hook: 'preHandler'; handler: preHandlerHookHandler }) & {
  /** Counts the answer once it is known (a limit of failures), before it is sent. */
  onSend?: onSendHookHandler;
};

/** Where limits of failures count (the same counter as the others, read with `peek`), and the time they count by. */
export interface FailureCounting {
  counter: RateLimitCounter;
  clock: Clock;
}

/**
 * Attaches each route's limit from its `config.throttle`, so it must run before any route is
 * registered. Both limits count in the database, so replicas share them, and answer 429
 * problem+json with Retry-After.
 */
export async function registerRateLimits(app: FastifyInstance, limits: RateLimits, store: FastifyRateLimitStoreCtor, failures: FailureCounting): Promise<void> {
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
    // A refresh (the JSON route, the console's session): only a refused one spends, ADDRESS_RATE_LIMIT a minute per
    // address, a count of its own. Its success proves a secret nobody guesses, and counting it let anyone sharing an
    // admin's address (a NAT, a proxy not in TRUSTED_PROXIES) end the admin's console session with sign-ins, and a
    // busy console use up its people's sign-ins (review Q).
    'address-failures': limits.addressPerMinute > 0 ? failureLimiter(failures, limits.addressPerMinute, 'refresh-failures') : null,
    // The token endpoint: the same for every grant but client credentials (a refresh token's failures count with the
    // JSON route's). A service authenticating as itself is throttled on its failed authentications only
    // (CLIENT_AUTH_RATE_LIMIT), as introspection is: its token requests spent the budget people at the same address
    // sign in with (review N).
    'address-failures-unless-client':
      limits.addressPerMinute > 0
        ? failureLimiter(failures, limits.addressPerMinute, 'refresh-failures', (request) => (request.body as { grant_type?: unknown } | undefined)?.grant_type !== 'client_credentials')
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
      if (limiter.onSend) route.onSend = [...(Array.isArray(route.onSend) ? route.onSend : route.onSend ? [route.onSend] : []), limiter.onSend];
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
    // The headers say the limit that refused (the per-client limiter set its own, with budget left, before this one).
    throw throttled('Too many requests', Math.max(1, result.ttlInSeconds), max);
  };
  return { hook: 'preHandler', handler };
}

/** The 429 of a limit of ours: its wait, and headers that name this limit. */
function throttled(what: string, seconds: number, max: number): HttpProblemError {
  return new HttpProblemError('TOO_MANY_REQUESTS', `${what}; retry after ${seconds} seconds`, {
    'retry-after': String(seconds),
    'x-ratelimit-limit': String(max),
    'x-ratelimit-remaining': '0',
    'x-ratelimit-reset': String(seconds),
  });
}

const notGuesses = new WeakSet<FastifyRequest>();

/**
 * A refusal that is no guess at a secret, so a failure limit (`address-failures`) does not count it: the console's
 * renewal without a session cookie, which every first load of the console makes (a script cannot see the cookie).
 */
export function refusedWithoutGuessing(request: FastifyRequest): void {
  notGuesses.add(request);
}

/**
 * A limit of failures per client address, for the requests `applies` to (all when absent): while the address's window
 * holds `max` refused requests, the next is 429 before any work; a request answered 4xx (but the 429 itself) counts, before its
 * answer leaves. A caller's own mistakes count (a malformed body, an unknown token); this service's faults do not.
 */
function failureLimiter(failures: FailureCounting, max: number, name: string, applies?: (request: FastifyRequest) => boolean): Limiter {
  const keyOf = (request: FastifyRequest) => `${name}:address:${normalizeIP(request.ip)}`;
  const check = async (request: FastifyRequest) => {
    if (applies && !applies(request)) return;
    const now = failures.clock.now();
    const window = await failures.counter.peek(keyOf(request), now);
    if (window === null || window.hits < max) return;
    throw throttled('Too many refused requests', Math.max(1, Math.ceil((window.endsAt.getTime() - now.getTime()) / 1000)), max);
  };
  const onSend: onSendHookHandler = async (request, reply, payload) => {
    const status = reply.statusCode;
    if (status >= 400 && status < 500 && status !== 429 && !notGuesses.has(request) && (!applies || applies(request))) await failures.counter.hit(keyOf(request), failures.clock.now(), 60_000);
    return payload;
  };
  // Checked before the request is read when the body does not decide (a refused body is no way around the limit);
  // after it otherwise.
  if (!applies) return { hook: 'onRequest', handler: check, onSend };
  return { hook: 'preHandler', handler: check, onSend };
}
