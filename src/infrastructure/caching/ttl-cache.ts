import { LRUCache } from 'lru-cache';

/**
 * A small in-process cache with a time-to-live per entry, a size bound (least recently used entry
 * evicted first), single-flight loads (concurrent misses for one key share one load) and explicit
 * invalidation. A load that started before an invalidation of its key (or a `clear()`) does not
 * store its (possibly stale) result, though it still answers the callers that awaited it.
 *
 * Storage, TTL and eviction are lru-cache's. The loads are not its `fetch()`: a `delete()` during a
 * fetch aborts it or lets it store, and we need "answer the callers, store nothing".
 * An entry is served while its age is at most `ttlMs`; `ttlMs <= 0` stores nothing (loads are still shared).
 */
export class TtlCache<K, V> {
  private readonly entries: LRUCache<NonNullable<K>, { value: V }>;
  private readonly loading = new Map<K, { promise: Promise<V>; generation: number }>();
  /** Every invalidation and clear takes a fresh number, so a load can tell whether one happened since it started. */
  private counter = 0;
  private generation = 0;
  private readonly keyGenerations = new Map<K, number>();

  constructor(
    private readonly options: { ttlMs: number; maxEntries: number; now?: () => number },
  ) {
    const now = options.now ?? (() => performance.now());
    this.entries = new LRUCache({
      max: Math.max(1, Math.floor(options.maxEntries)),
      // lru-cache wants a positive integer; the `ttlMs <= 0` case never stores.
      ttl: Math.max(1, Math.round(options.ttlMs)),
      // Read the clock on every check (the default caches it for 1 ms, behind a real timer).
      ttlResolution: 0,
      // lru-cache reads a start time of exactly 0 as "no TTL": never give it one.
      perf: { now: () => now() || Number.MIN_VALUE },
    });
  }

  async get(key: K, load: () => Promise<V>): Promise<V> {
    const entry = this.entries.get(key as NonNullable<K>);
    if (entry) return entry.value;
    const generation = this.generationOf(key);
    const inFlight = this.loading.get(key);
    if (inFlight && inFlight.generation === generation) return inFlight.promise;
    const promise = load().then(
      (value) => {
        if (this.loading.get(key)?.promise === promise) this.loading.delete(key);
        if (generation === this.generationOf(key) && this.options.ttlMs > 0) {
          this.entries.set(key as NonNullable<K>, { value });
        }
        return value;
      },
      (error: unknown) => {
        if (this.loading.get(key)?.promise === promise) this.loading.delete(key);
        throw error;
      },
    );
    this.loading.set(key, { promise, generation });
    return promise;
  }

  invalidate(key: K): void {
    this.entries.delete(key as NonNullable<K>);
    this.keyGenerations.set(key, ++this.counter);
    // Bounded like the entries: past it, forget every key's generation at once (which also drops the entries).
    if (this.keyGenerations.size > this.options.maxEntries) this.clear();
  }

  clear(): void {
    this.entries.clear();
    this.keyGenerations.clear();
    this.generation = ++this.counter;
  }

  private generationOf(key: K): number {
    return this.keyGenerations.get(key) ?? this.generation;
  }
}
