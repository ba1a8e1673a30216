import type { ProcessedEventStore } from '../../../src/application/ports/processed-event-store.port';
import { RECORD_ATTEMPTS, RetriedProcessedEvents } from '../../../src/infrastructure/persistence/typeorm/retried-processed-events';

function flaky(failures: number): ProcessedEventStore & { calls: number } {
  const store = {
    calls: 0,
    has: async () => false,
    async record() {
      store.calls++;
      if (store.calls <= failures) throw new Error('connection lost');
    },
  };
  return store;
}

describe('RetriedProcessedEvents: the record after a mail was sent', () => {
  it('tries a failed record again at once, with growing pauses, until it is made', async () => {
    const store = flaky(3);
    const pauses: number[] = [];
    await new RetriedProcessedEvents(store, async (ms) => void pauses.push(ms)).record('mailer', 'event-1', new Date());
    expect(store.calls).toBe(4);
    expect(pauses).toHaveLength(3);
    expect(pauses[2]!).toBeGreaterThan(pauses[0]!);
  });

  it('lets the failure through after its attempts (the consumer then handles the event again)', async () => {
    const store = flaky(Number.POSITIVE_INFINITY);
    const pauses: number[] = [];
    await expect(new RetriedProcessedEvents(store, async (ms) => void pauses.push(ms)).record('mailer', 'event-1', new Date())).rejects.toThrow('connection lost');
    expect(store.calls).toBe(RECORD_ATTEMPTS);
    expect(pauses.reduce((a, b) => a + b, 0)).toBeLessThan(15_000);
  });
});
