import { AsyncLocalStorage } from 'node:async_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import pino from 'pino';
import { AfterAnswer, AfterAnswerFullError } from '../../../src/interfaces/http/after-answer';

function capture() {
  const lines: { msg: string; task?: string; attempts?: number }[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

describe('AfterAnswer', () => {
  it('runs a task in the background and forgets it once done', async () => {
    const { logger } = capture();
    const after = new AfterAnswer({ logger });
    let ran = false;
    await after.admit('t', async () => {
      ran = true;
    });
    expect(after.pending).toBe(1);
    await after.drain();
    expect([ran, after.pending]).toEqual([true, 0]);
  });

  it('tries a failing task again with backoff until it succeeds, and says so', async () => {
    const { logger, lines } = capture();
    const after = new AfterAnswer({ logger, initialDelayMs: 1, maxDelayMs: 2 });
    let calls = 0;
    await after.admit('flaky', async () => {
      calls += 1;
      if (calls < 3) throw new Error('database away');
    });
    while (after.pending > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(calls).toBe(3);
    expect(lines.map((l) => l.msg)).toEqual(['deferred task failed; trying again', 'deferred task failed; trying again', 'deferred task done after retrying']);
  });

  it('gives a task up after maxAttempts, logging an error', async () => {
    const { logger, lines } = capture();
    const after = new AfterAnswer({ logger, maxAttempts: 2, initialDelayMs: 1, maxDelayMs: 1 });
    let calls = 0;
    await after.admit('doomed', async () => {
      calls += 1;
      throw new Error('never');
    });
    while (after.pending > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(calls).toBe(2);
    expect(lines.at(-1)).toMatchObject({ msg: 'deferred task given up', task: 'doomed', attempts: 2 });
  });

  it('drain waits for running tasks, cuts the wait between attempts short and gives each one last try', async () => {
    const { logger } = capture();
    const after = new AfterAnswer({ logger, initialDelayMs: 60_000, maxDelayMs: 60_000 });
    let calls = 0;
    await after.admit('slow to recover', async () => {
      calls += 1;
      throw new Error('still away');
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const started = Date.now();
    await after.drain();
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(calls).toBe(2);
    expect(after.pending).toBe(0);
  });
  /** A task that runs until `release` is called. */
  function held() {
    let release = (): void => undefined;
    const done = new Promise<void>((resolve) => (release = resolve));
    return { task: () => done, release: () => release() };
  }

  it('drain gives up, with an error line each, the tasks not done within drainTimeoutMs of the stop (a database that never answers)', async () => {
    const { logger, lines } = capture();
    const after = new AfterAnswer({ logger, drainTimeoutMs: 50 });
    for (const name of ['hung 1', 'hung 2']) await after.admit(name, () => new Promise<void>(() => undefined));
    const started = Date.now();
    await after.drain();
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(after.pending).toBe(0);
    expect(lines.filter((l) => l.msg === 'deferred task given up').map((l) => l.task).sort()).toEqual(['hung 1', 'hung 2']);
  });

  it('keeps nothing of a task once it is done: the request context it ran in is collected (a race against the stop kept each one)', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const context = new AsyncLocalStorage<{ userAgent: string }>();
    const after = new AfterAnswer({ logger: capture().logger });
    const contexts: WeakRef<object>[] = [];
    for (let i = 0; i < 50; i++) {
      const store = { userAgent: 'A'.repeat(14_000) + i };
      contexts.push(new WeakRef(store));
      await context.run(store, () => after.admit('reset', () => new Promise<void>((resolve) => setImmediate(resolve))));
    }
    while (after.pending > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    for (let i = 0; i < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      gc();
    }
    // The last may still be held by the microtask that ended it; with a race against the stop, every one was.
    expect(contexts.filter((ref) => ref.deref() !== undefined).length).toBeLessThanOrEqual(1);
    // The stop still gives up what runs past its deadline.
    await after.admit('hung', () => new Promise<void>(() => undefined));
  });

  it('runs at most maxPending tasks at once; one more waits, its caller with it, and starts when one ends, in arrival order', async () => {
    const { logger } = capture();
    const after = new AfterAnswer({ logger, maxPending: 2, admitTimeoutMs: 10_000 });
    const first = held();
    const second = held();
    await after.admit('a', first.task);
    await after.admit('b', second.task);
    const started: string[] = [];
    const admitted: string[] = [];
    const third = held();
    const fourth = held();
    const waitingThird = after.admit('c', () => (started.push('c'), third.task())).then(() => admitted.push('c'));
    const waitingFourth = after.admit('d', () => (started.push('d'), fourth.task())).then(() => admitted.push('d'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect([after.pending, after.queued, started, admitted]).toEqual([2, 2, [], []]);
    second.release();
    await waitingThird;
    expect([started, admitted, after.pending, after.queued]).toEqual([['c'], ['c'], 2, 1]);
    first.release();
    await waitingFourth;
    expect([started, admitted, after.pending, after.queued]).toEqual([['c', 'd'], ['c', 'd'], 2, 0]);
    third.release();
    fourth.release();
    await after.drain();
    expect([after.pending, after.queued]).toEqual([0, 0]);
  });

  it('refuses a task that found no room within admitTimeoutMs, and never starts it', async () => {
    const { logger } = capture();
    const after = new AfterAnswer({ logger, maxPending: 1, admitTimeoutMs: 30 });
    const busy = held();
    await after.admit('busy', busy.task);
    let ran = false;
    const started = Date.now();
    await expect(after.admit('late', async () => void (ran = true))).rejects.toBeInstanceOf(AfterAnswerFullError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    expect(after.queued).toBe(0);
    busy.release();
    await after.drain();
    expect(ran).toBe(false);
  });

  it('drain also waits for the tasks that were waiting for room', async () => {
    const { logger } = capture();
    const after = new AfterAnswer({ logger, maxPending: 1, admitTimeoutMs: 10_000 });
    const busy = held();
    await after.admit('busy', busy.task);
    let ran = false;
    const queued = after.admit('queued', async () => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      ran = true;
    });
    setTimeout(() => busy.release(), 10);
    await after.drain();
    await queued;
    expect(ran).toBe(true);
  });
});
