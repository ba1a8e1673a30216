import pino from 'pino';
import { AfterAnswer } from '../../../src/interfaces/http/after-answer';

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
    after.run('t', async () => {
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
    after.run('flaky', async () => {
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
    after.run('doomed', async () => {
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
    after.run('slow to recover', async () => {
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
});
