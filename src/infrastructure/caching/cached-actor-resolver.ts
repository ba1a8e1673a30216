import type { Actor } from '../../application/auth/actor';
import type { TokenSubject } from '../../application/auth/authenticate-actor.use-case';
import { TtlCache } from './ttl-cache';

export interface ActorResolver {
  execute(token: TokenSubject): Promise<Actor | null>;
}

/**
 * Remembers, for at most `ttlMs`, what a token's subject resolved to (its actor, or that it is no
 * longer a joined user), so a burst of requests with one token costs one lookup per `ttlMs`.
 * Only the subject → actor step is cached: the token itself (signature, expiry, and any
 * revocation check done before resolving) is checked on every request.
 * A token with another token version than the cached one is resolved afresh.
 * Staleness: a change to the user made by this process (sign-out, update, removal) drops it at once
 * (`invalidate`, called on the user repository's change notices). One made by another process (another
 * replica) takes effect after at most `ttlMs`. A change to any role (its permissions) takes effect on the
 * next request everywhere: each entry keeps the role catalogue's revision it was resolved at, and one
 * resolved at another revision than the current one is resolved afresh (`rolesRevision`, a primary-key read).
 */
export class CachedActorResolver implements ActorResolver {
  private readonly cache: TtlCache<string, { tokenVersion: number; rolesRevision: number; actor: Actor | null }>;
  private readonly rolesRevision: (() => Promise<number>) | undefined;

  /**
   * `ttlMs` has no default here: the root passes ACTOR_CACHE_TTL, and builds no cache at all when it is 0.
   * `rolesRevision`: the role catalogue's current revision; without it (tests) role changes are not noticed.
   */
  constructor(
    private readonly inner: ActorResolver,
    options: { ttlMs: number; maxEntries?: number; rolesRevision?: () => Promise<number> },
  ) {
    this.cache = new TtlCache({ ttlMs: options.ttlMs, maxEntries: options.maxEntries ?? 10_000 });
    this.rolesRevision = options.rolesRevision;
  }

  async execute(token: TokenSubject): Promise<Actor | null> {
    const rolesRevision = this.rolesRevision ? await this.rolesRevision() : 0;
    // Read before resolving: the actor is at least as recent as the revision it is kept with.
    const load = async () => ({ tokenVersion: token.tokenVersion, rolesRevision, actor: await this.inner.execute(token) });
    let cached = await this.cache.get(token.subject, load);
    if (cached.rolesRevision < rolesRevision) {
      // Resolved before a role changed: its permissions may be stale.
      this.cache.invalidate(token.subject);
      cached = await this.cache.get(token.subject, load);
    }
    if (cached.tokenVersion === token.tokenVersion) return cached.actor;
    // Another version than the one cached (a token from before a sign-out, or the cache is behind): ask the source.
    this.cache.invalidate(token.subject);
    return this.inner.execute(token);
  }

  invalidate(subject: string): void {
    this.cache.invalidate(subject);
  }

  clear(): void {
    this.cache.clear();
  }
}
