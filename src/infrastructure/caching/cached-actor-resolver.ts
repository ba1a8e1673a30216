import { type Actor, narrowedToScope, takesTokenIssuedAt } from '../../application/auth/actor';
import {
  isServiceTokenSubject,
  type ServiceTokenSubject,
  type TokenSubject,
} from '../../application/auth/authenticate-actor.use-case';
import type { RevocationSignal, RevocationView } from './revocation-watch';
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
  /** Entries kept on the revocation signal's word, with the subject's epoch they were read at. */
  private readonly watched: TtlCache<string, { tokenVersion: number; rolesRevision: number; epoch: number; actor: Actor | null }>;
  private readonly signal: RevocationSignal | undefined;
  private readonly ttlMs: number;
  private readonly rolesRevision: (() => Promise<number>) | undefined;
  private readonly serviceAccountVersion: ((id: string) => Promise<number | null>) | undefined;

  /**
   * `ttlMs` has no default here: the root passes ACTOR_CACHE_TTL, and builds no cache at all when it is 0.
   * `rolesRevision`: the role catalogue's current revision; without it (tests) role changes are not noticed.
   */
  constructor(
    private readonly inner: ActorResolver,
    options: {
      ttlMs: number;
      maxEntries?: number;
      rolesRevision?: () => Promise<number>;
      /** A service account's version as committed (null: deleted); without it (tests) only notices and the TTL apply. */
      serviceAccountVersion?: (id: string) => Promise<number | null>;
      /**
       * The revocation signal (revocation-watch.ts): while it is trusted, an entry is served with no read at all
       * as long as its subject's epoch and the roles' revision are the ones it was read at. When it is not
       * trusted, `ttlMs` applies (0: every request is resolved afresh).
       */
      signal?: RevocationSignal;
      /** How long an entry may be kept on the signal's word (a bound on memory, not on staleness). */
      watchedTtlMs?: number;
    },
  ) {
    this.cache = new TtlCache({ ttlMs: options.ttlMs, maxEntries: options.maxEntries ?? 10_000 });
    this.watched = new TtlCache({ ttlMs: options.watchedTtlMs ?? 60_000, maxEntries: options.maxEntries ?? 10_000 });
    this.signal = options.signal;
    this.ttlMs = options.ttlMs;
    this.rolesRevision = options.rolesRevision;
    this.serviceAccountVersion = options.serviceAccountVersion;
  }

  async execute(token: TokenSubject): Promise<Actor | null> {
    const view = this.signal?.current() ?? null;
    if (view) return this.onSignal(token, view);
    if (this.ttlMs <= 0) return this.inner.execute(token);
    if (isServiceTokenSubject(token)) return this.serviceAccount(token);
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

  /** Drops what is kept for the subject, a user or a service account (the notices name either by its id). */
  invalidate(subject: string): void {
    for (const cache of [this.cache, this.watched]) {
      cache.invalidate(subject);
      cache.invalidate(serviceKey(subject));
    }
  }

  /**
   * No read while the subject's epoch and the roles' revision are the ones its entry was resolved at: any
   * change to it (sign-out, deactivation, deletion, password change, new role; a service account's disabling,
   * deletion, role) moved its epoch on, and any role change the revision. The view is read before resolving,
   * so an entry is never newer than the epoch it is kept with (a change in between only costs a reload).
   */
  private async onSignal(token: TokenSubject, view: RevocationView): Promise<Actor | null> {
    const service = isServiceTokenSubject(token);
    const key = service ? serviceKey(token.subject) : token.subject;
    const epoch = view.epochOf(token.subject);
    const { rolesRevision } = view;
    const subject: TokenSubject = service ? { kind: 'service', subject: token.subject, clientId: token.clientId } : token;
    const load = async () => ({ tokenVersion: service ? 0 : token.tokenVersion, rolesRevision, epoch, actor: await this.inner.execute(subject) });
    let cached = await this.watched.get(key, load);
    if (cached.epoch !== epoch || cached.rolesRevision !== rolesRevision || (!service && cached.tokenVersion !== token.tokenVersion)) {
      this.watched.invalidate(key);
      cached = await this.watched.get(key, load);
    }
    if (!service) return cached.tokenVersion === token.tokenVersion ? cached.actor : this.inner.execute(token);
    const actor = cached.actor;
    if (!actor || actor.clientId !== token.clientId || !takesTokenIssuedAt(actor, token.issuedAt)) return null;
    return narrowedToScope(actor, token.scope);
  }

  /**
   * A service token: its account's actor is kept unnarrowed under a key of its own (a user's entry is never
   * taken for it) with its client id and the account's version, and narrowed to each token's scope; a token issued
   * before the account's last disabling (its `iat` before the actor's `tokensValidFrom`) is refused. Current
   * at every request on every replica: the account's version (a primary-key read, as the roles' revision)
   * is compared each time, so a change anywhere (role, disabled, deleted) is read afresh at the next request.
   */
  private async serviceAccount(token: ServiceTokenSubject): Promise<Actor | null> {
    const [rolesRevision, version] = await Promise.all([
      this.rolesRevision ? this.rolesRevision() : 0,
      this.serviceAccountVersion ? this.serviceAccountVersion(token.subject) : -1,
    ]);
    if (version === null) return null; // deleted
    const key = serviceKey(token.subject);
    const whole: ServiceTokenSubject = { kind: 'service', subject: token.subject, clientId: token.clientId };
    // The version read before resolving is the one kept: the actor is at least as recent as it.
    const load = async () => ({ tokenVersion: version, rolesRevision, actor: await this.inner.execute(whole) });
    let cached = await this.cache.get(key, load);
    if (cached.rolesRevision < rolesRevision || cached.tokenVersion < version) {
      this.cache.invalidate(key);
      cached = await this.cache.get(key, load);
    }
    const actor = cached.actor;
    if (!actor || actor.clientId !== token.clientId || !takesTokenIssuedAt(actor, token.issuedAt)) return null;
    return narrowedToScope(actor, token.scope);
  }

  clear(): void {
    this.cache.clear();
    this.watched.clear();
  }
}

/** Service accounts' entries live under their own keys: no user's entry is ever read for one. */
const serviceKey = (id: string) => `service:${id}`;
