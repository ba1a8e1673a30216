import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { Clock } from '../../../application/ports/clock.port';
import type { RateLimitCounter } from '../../../application/ports/rate-limit-counter.port';

/**
 * @fastify/rate-limit's store contract over our RateLimitCounter, so every replica counts in the
 * same place. The plugin constructs the store class itself, hence a class made per counter.
 *
 * A counter that fails (the database away) fails the request: its error reaches the error
 * handler, which answers 503 with Retry-After, as the lockout's does. Every throttled route needs
 * the database for its own work anyway, and a throttle that let requests through whenever it
 * could not count would be off exactly when the database is in trouble.
 */
export function counterRateLimitStore(counter: RateLimitCounter, clock: Clock): FastifyRateLimitStoreCtor {
  return class CounterRateLimitStore implements FastifyRateLimitStore {
    incr(key: string, callback: (error: Error | null, result?: { current: number; ttl: number }) => void, timeWindow: number): void {
      const now = clock.now();
      counter.hit(key, now, timeWindow).then(
        (window) => callback(null, { current: window.hits, ttl: Math.max(0, window.endsAt.getTime() - now.getTime()) }),
        (error: unknown) => callback(error as Error),
      );
    }

    // Limits are told apart by their keys (see registerRateLimits), not by a store per route.
    child(): FastifyRateLimitStore {
      return this;
    }
  };
}
