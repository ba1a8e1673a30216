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

/**
 * Queries by key, each its own statement, where identical ones asked for at once share one: BatchedLookup's rule (a
 * caller is answered by a query sent after it asked, never from a cache) kept per key. A key asked for while its
 * query is in flight waits for it to end and is loaded again, once for everyone who asked meanwhile; other keys never
 * wait for it. What the counted pages (an e-mail, a prefix search) are shared by: one broad search, running up to
 * SEARCH_TIME_LIMIT or waiting for its turn, neither holds up nor fails another key's page (review of 2026-12-07:
 * batched together, a broad search's time-out answered every page of its batch 422, narrow searches and e-mails too).
 */
export class SharedQueries<K, V> {
  private readonly keys = new Map<K, { inFlight: boolean; waiting: { resolve: (value: V) => void; reject: (error: unknown) => void }[] }>();

  constructor(private readonly load: (key: K) => Promise<V>) {}

  get(key: K): Promise<V> {
    return new Promise((resolve, reject) => {
      let state = this.keys.get(key);
      if (!state) {
        state = { inFlight: false, waiting: [] };
        this.keys.set(key, state);
      }
      state.waiting.push({ resolve, reject });
      this.pump(key);
    });
  }

  private pump(key: K): void {
    const state = this.keys.get(key)!;
    if (state.inFlight) return;
    if (state.waiting.length === 0) {
      this.keys.delete(key);
      return;
    }
    const callers = state.waiting;
    state.waiting = [];
    state.inFlight = true;
    this.load(key)
      .then(
        (value) => callers.forEach((caller) => caller.resolve(value)),
        (error: unknown) => callers.forEach((caller) => caller.reject(error)),
      )
      .finally(() => {
        state.inFlight = false;
        this.pump(key);
      });
  }
}
