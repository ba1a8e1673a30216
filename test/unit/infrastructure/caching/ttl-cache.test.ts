import { TtlCache } from '../../../../src/infrastructure/caching/ttl-cache';

/** A clock the test moves by hand; it starts at 0, as a test clock may. */
function manualClock() {
  let ms = 0;
  return { now: () => ms, advance: (by: number) => void (ms += by) };
}

/** A load the test answers (or fails) by hand. */
function controlledLoad<V>() {
  const calls: { answer: (value: V) => void; fail: (error: Error) => void }[] = [];
  const load = () =>
    new Promise<V>((resolve, reject) => {
      calls.push({ answer: resolve, fail: reject });
    });
  return { calls, load };
}

/** A load that answers at once, counting its calls. */
function countingLoad<V>(value: (call: number) => V) {
  const counter = { calls: 0 };
  const load = async () => value(++counter.calls);
  return { counter, load };
}

function setup(options: { ttlMs?: number; maxEntries?: number } = {}) {
  const clock = manualClock();
  const cache = new TtlCache<string, string>({ ttlMs: options.ttlMs ?? 1_000, maxEntries: options.maxEntries ?? 10, now: clock.now });
  return { cache, clock };
}

describe('TtlCache', () => {
  it('answers from the cache within the TTL, and loads again once it has passed', async () => {
    const { cache, clock } = setup({ ttlMs: 1_000 });
    const { counter, load } = countingLoad((n) => `value ${n}`);

    await expect(cache.get('k', load)).resolves.toBe('value 1');
    clock.advance(999);
    await expect(cache.get('k', load)).resolves.toBe('value 1');
    expect(counter.calls).toBe(1);

    clock.advance(2);
    await expect(cache.get('k', load)).resolves.toBe('value 2');
    expect(counter.calls).toBe(2);
  });

  it('counts the TTL from the store, not from the last read', async () => {
    const { cache, clock } = setup({ ttlMs: 1_000 });
    const { counter, load } = countingLoad((n) => `value ${n}`);

    await cache.get('k', load);
    for (let i = 0; i < 4; i++) {
      clock.advance(300);
      await cache.get('k', load);
    }
    expect(counter.calls).toBe(2);
  });

  it('keeps entries per key', async () => {
    const { cache } = setup();
    await cache.get('a', async () => 'A');
    await cache.get('b', async () => 'B');
    await expect(cache.get('a', async () => 'other')).resolves.toBe('A');
    await expect(cache.get('b', async () => 'other')).resolves.toBe('B');
  });

  it('keeps at most maxEntries, evicting the least recently used', async () => {
    const { cache } = setup({ maxEntries: 2 });
    await cache.get('a', async () => 'A');
    await cache.get('b', async () => 'B');
    await cache.get('a', async () => 'not loaded'); // 'a' is now the most recently used
    await cache.get('c', async () => 'C'); // evicts 'b'

    await expect(cache.get('a', async () => 'reloaded')).resolves.toBe('A');
    await expect(cache.get('c', async () => 'reloaded')).resolves.toBe('C');
    await expect(cache.get('b', async () => 'reloaded')).resolves.toBe('reloaded');
  });

  it('shares one load between concurrent misses of a key', async () => {
    const { cache } = setup();
    const { calls, load } = controlledLoad<string>();

    const waiting = [cache.get('k', load), cache.get('k', load), cache.get('k', load)];
    expect(calls).toHaveLength(1);
    calls[0]!.answer('V');

    await expect(Promise.all(waiting)).resolves.toEqual(['V', 'V', 'V']);
    await expect(cache.get('k', load)).resolves.toBe('V');
    expect(calls).toHaveLength(1);
  });

  it('does not cache a failed load: its callers see the error and the next get loads again', async () => {
    const { cache } = setup();
    const { calls, load } = controlledLoad<string>();

    const first = cache.get('k', load);
    const second = cache.get('k', load);
    calls[0]!.fail(new Error('database away'));
    await expect(first).rejects.toThrow('database away');
    await expect(second).rejects.toThrow('database away');

    const third = cache.get('k', load);
    expect(calls).toHaveLength(2);
    calls[1]!.answer('V');
    await expect(third).resolves.toBe('V');
  });

  it('drops an entry on invalidate', async () => {
    const { cache } = setup();
    await cache.get('k', async () => 'old');
    cache.invalidate('k');
    await expect(cache.get('k', async () => 'new')).resolves.toBe('new');
  });

  it('does not store a load that started before an invalidation of its key, but still answers its callers', async () => {
    const { cache } = setup();
    const { calls, load } = controlledLoad<string>();

    const before = cache.get('k', load);
    cache.invalidate('k'); // e.g. the user signed out while their actor was being read
    const after = cache.get('k', load); // does not join the load from before the invalidation
    expect(calls).toHaveLength(2);

    calls[0]!.answer('stale');
    await expect(before).resolves.toBe('stale');
    calls[1]!.answer('fresh');
    await expect(after).resolves.toBe('fresh');
    await expect(cache.get('k', load)).resolves.toBe('fresh');
    expect(calls).toHaveLength(2);
  });

  it('does not store a load that was in flight during an invalidation, even if it ends last', async () => {
    const { cache } = setup();
    const { calls, load } = controlledLoad<string>();

    const before = cache.get('k', load);
    cache.invalidate('k');
    calls[0]!.answer('stale');
    await expect(before).resolves.toBe('stale');

    const next = cache.get('k', load);
    expect(calls).toHaveLength(2);
    calls[1]!.answer('fresh');
    await expect(next).resolves.toBe('fresh');
  });

  it('lets an invalidation of one key leave the loads of other keys alone', async () => {
    const { cache } = setup();
    const { calls, load } = controlledLoad<string>();

    const a = cache.get('a', load);
    cache.invalidate('b');
    calls[0]!.answer('A');
    await expect(a).resolves.toBe('A');
    await expect(cache.get('a', load)).resolves.toBe('A');
    expect(calls).toHaveLength(1);
  });

  it('drops every entry on clear(), and stores no load that started before it', async () => {
    const { cache } = setup();
    await cache.get('a', async () => 'A');
    await cache.get('b', async () => 'B');
    const { calls, load } = controlledLoad<string>();
    cache.invalidate('c');
    const c = cache.get('c', load); // started after the invalidation of 'c', before the clear

    cache.clear();
    calls[0]!.answer('stale C');
    await expect(c).resolves.toBe('stale C');

    await expect(cache.get('a', async () => 'A2')).resolves.toBe('A2');
    await expect(cache.get('b', async () => 'B2')).resolves.toBe('B2');
    await expect(cache.get('c', async () => 'C2')).resolves.toBe('C2');
  });

  it('caches again after clear()', async () => {
    const { cache } = setup();
    cache.clear();
    const { counter, load } = countingLoad((n) => `value ${n}`);
    await cache.get('k', load);
    await expect(cache.get('k', load)).resolves.toBe('value 1');
    expect(counter.calls).toBe(1);
  });

  it('keeps invalidating correctly once more keys were invalidated than it holds entries', async () => {
    const { cache } = setup({ maxEntries: 2 });
    const { calls, load } = controlledLoad<string>();
    const pending = cache.get('k', load);
    for (const key of ['x', 'y', 'z', 'k']) cache.invalidate(key);

    calls[0]!.answer('stale');
    await expect(pending).resolves.toBe('stale');
    await expect(cache.get('k', async () => 'fresh')).resolves.toBe('fresh');
  });

  it('stores nothing with a TTL of 0, but still shares a load', async () => {
    const { cache } = setup({ ttlMs: 0 });
    const { calls, load } = controlledLoad<string>();
    const waiting = [cache.get('k', load), cache.get('k', load)];
    expect(calls).toHaveLength(1);
    calls[0]!.answer('V');
    await expect(Promise.all(waiting)).resolves.toEqual(['V', 'V']);

    await expect(cache.get('k', async () => 'again')).resolves.toBe('again');
  });
});
