/**
 * A small in-process cache with a time-to-live per entry, a size bound (oldest entry evicted first),
 * single-flight loads (concurrent misses for one key share one load) and explicit invalidation.
 * A load that started before an invalidation of its key does not store its (possibly stale) result.
 */
export class TtlCache<K, V> {
  private readonly entries = new Map<K, { value: V; expiresAt: number }>();
  private readonly loading = new Map<K, { promise: Promise<V>; generation: number }>();
  private generation = 0;
  private readonly keyGenerations = new Map<K, number>();

  constructor(
    private readonly options: { ttlMs: number; maxEntries: number; now?: () => number },
  ) {}

  private now(): number {
    return this.options.now ? this.options.now() : performance.now();
  }

  async get(key: K, load: () => Promise<V>): Promise<V> {
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt > this.now()) return entry.value;
    const inFlight = this.loading.get(key);
    if (inFlight && inFlight.generation === this.generationOf(key)) return inFlight.promise;
    const generation = this.generationOf(key);
    const promise = load().then(
      (value) => {
        if (this.loading.get(key)?.promise === promise) this.loading.delete(key);
        if (generation === this.generationOf(key)) this.set(key, value);
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
    this.entries.delete(key);
    this.keyGenerations.set(key, (this.keyGenerations.get(key) ?? this.generation) + 1);
    if (this.keyGenerations.size > this.options.maxEntries) this.clear();
  }

  clear(): void {
    this.entries.clear();
    this.keyGenerations.clear();
    this.generation++;
  }

  private generationOf(key: K): number {
    return this.keyGenerations.get(key) ?? this.generation;
  }

  private set(key: K, value: V): void {
    this.entries.delete(key);
    if (this.entries.size >= this.options.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, { value, expiresAt: this.now() + this.options.ttlMs });
  }
}
