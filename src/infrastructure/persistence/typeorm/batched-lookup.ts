/**
 * Look-ups by key that share round trips without ever answering from a cache.
 *
 * A key asked for while no batch is in flight is loaded at once. Keys asked for while one is in
 * flight wait for it to end and are then loaded together, in one query. Every batch is sent after
 * each of its callers asked, so it sees every change committed before any of them asked: as fresh
 * as a query per call (a sign-out is seen by the next request at once), with fewer round trips
 * under load. Unlike a cache, nothing is kept once a batch is answered.
 */
export class BatchedLookup<K, V> {
  private queued = new Map<K, { resolve: (value: V | null) => void; reject: (error: unknown) => void }[]>();
  private inFlight = false;

  constructor(
    private readonly load: (keys: K[]) => Promise<Map<K, V>>,
    private readonly maxBatch = 100,
  ) {}

  get(key: K): Promise<V | null> {
    return new Promise((resolve, reject) => {
      const waiting = this.queued.get(key);
      if (waiting) waiting.push({ resolve, reject });
      else this.queued.set(key, [{ resolve, reject }]);
      this.pump();
    });
  }

  private pump(): void {
    if (this.inFlight || this.queued.size === 0) return;
    const batch = new Map<K, { resolve: (value: V | null) => void; reject: (error: unknown) => void }[]>();
    for (const [key, waiting] of this.queued) {
      if (batch.size >= this.maxBatch) break;
      batch.set(key, waiting);
    }
    for (const key of batch.keys()) this.queued.delete(key);
    this.inFlight = true;
    this.load([...batch.keys()]).then(
      (found) => {
        for (const [key, waiting] of batch) for (const w of waiting) w.resolve(found.get(key) ?? null);
      },
      (error: unknown) => {
        for (const waiting of batch.values()) for (const w of waiting) w.reject(error);
      },
    ).finally(() => {
      this.inFlight = false;
      this.pump();
    });
  }
}
