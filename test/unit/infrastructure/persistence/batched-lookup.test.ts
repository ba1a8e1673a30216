import { BatchedLookup, SharedQueries } from '../../../../src/infrastructure/persistence/typeorm/batched-lookup';

/** A loader whose batches the test answers by hand. */
function controlledLoader() {
  const calls: { keys: string[]; answer: (values: Record<string, number>) => void; fail: (error: Error) => void }[] = [];
  const load = (keys: string[]) =>
    new Promise<Map<string, number>>((resolve, reject) => {
      calls.push({ keys, answer: (values) => resolve(new Map(Object.entries(values))), fail: reject });
    });
  return { calls, load };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('BatchedLookup', () => {
  it('loads a lone key at once', async () => {
    const { calls, load } = controlledLoader();
    const lookup = new BatchedLookup(load);
    const a = lookup.get('a');
    expect(calls.map((c) => c.keys)).toEqual([['a']]);
    calls[0]!.answer({ a: 1 });
    await expect(a).resolves.toBe(1);
  });

  it('loads the keys asked for during a batch together, once each, in the next batch', async () => {
    const { calls, load } = controlledLoader();
    const lookup = new BatchedLookup(load);
    const first = lookup.get('a');
    const waiting = [lookup.get('b'), lookup.get('a'), lookup.get('c'), lookup.get('b')];
    expect(calls).toHaveLength(1);
    calls[0]!.answer({ a: 1 });
    await first;
    await tick();
    expect(calls.map((c) => c.keys)).toEqual([['a'], ['b', 'a', 'c']]);
    calls[1]!.answer({ a: 10, b: 20 });
    await expect(Promise.all(waiting)).resolves.toEqual([20, 10, null, 20]);
  });

  it('never answers a caller from a batch that started before it asked', async () => {
    const { calls, load } = controlledLoader();
    const lookup = new BatchedLookup(load);
    const before = lookup.get('user');
    const after = lookup.get('user'); // asked while the first batch is in flight
    calls[0]!.answer({ user: 1 }); // e.g. the token version before a sign-out
    await expect(before).resolves.toBe(1);
    await tick();
    expect(calls).toHaveLength(2);
    calls[1]!.answer({ user: 2 });
    await expect(after).resolves.toBe(2);
  });

  it('rejects only the callers of a failed batch, and goes on with the next', async () => {
    const { calls, load } = controlledLoader();
    const lookup = new BatchedLookup(load);
    const failed = lookup.get('a');
    const next = lookup.get('b');
    calls[0]!.fail(new Error('database away'));
    await expect(failed).rejects.toThrow('database away');
    await tick();
    calls[1]!.answer({ b: 2 });
    await expect(next).resolves.toBe(2);
  });

  it('splits a long queue into batches of at most maxBatch keys', async () => {
    const { calls, load } = controlledLoader();
    const lookup = new BatchedLookup(load, 2);
    const all = ['a', 'b', 'c', 'd', 'e'].map((key) => lookup.get(key));
    for (let i = 0; i < 3; i++) {
      calls[i]!.answer({});
      await tick();
    }
    expect(calls.map((c) => c.keys)).toEqual([['a'], ['b', 'c'], ['d', 'e']]);
    await expect(Promise.all(all)).resolves.toEqual([null, null, null, null, null]);
  });
});

describe('SharedQueries', () => {
  /** A loader whose queries the test answers by hand, one per key. */
  function controlledQueries() {
    const calls: { key: string; answer: (value: number) => void; fail: (error: Error) => void }[] = [];
    const load = (key: string) => new Promise<number>((resolve, reject) => calls.push({ key, answer: resolve, fail: reject }));
    return { calls, queries: new SharedQueries(load) };
  }

  it('runs different keys at once, each answered on its own, and a key asked for again meanwhile by one later query', async () => {
    const { calls, queries } = controlledQueries();
    const [a, b] = [queries.get('a'), queries.get('b')];
    const later = [queries.get('a'), queries.get('a')];
    expect(calls.map((call) => call.key)).toEqual(['a', 'b']);
    calls[1]!.answer(2);
    await expect(b).resolves.toBe(2);
    // A slow key holds up nobody else: a new key starts while 'a' is still in flight.
    const c = queries.get('c');
    expect(calls.map((call) => call.key)).toEqual(['a', 'b', 'c']);
    calls[2]!.answer(3);
    await expect(c).resolves.toBe(3);
    calls[0]!.answer(1);
    await expect(a).resolves.toBe(1);
    await tick();
    // The two asked for while the first 'a' was in flight share one query sent after they asked.
    expect(calls.map((call) => call.key)).toEqual(['a', 'b', 'c', 'a']);
    calls[3]!.answer(10);
    await expect(Promise.all(later)).resolves.toEqual([10, 10]);
  });

  it("fails only the failed key's callers", async () => {
    const { calls, queries } = controlledQueries();
    const [broad, narrow] = [queries.get('broad'), queries.get('narrow')];
    calls[0]!.fail(new Error('statement time limit'));
    calls[1]!.answer(1);
    await expect(broad).rejects.toThrow('statement time limit');
    await expect(narrow).resolves.toBe(1);
    const again = queries.get('broad');
    expect(calls).toHaveLength(3);
    calls[2]!.answer(5);
    await expect(again).resolves.toBe(5);
  });
});
