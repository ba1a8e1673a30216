import { Registry } from 'prom-client';
import { ServiceMetrics } from '../../../src/infrastructure/observability/service-metrics';

/** The outbox's two gauges, read from one scrape's text. */
async function outboxGauges(registry: Registry): Promise<{ backlog: number; age: number }> {
  const text = await registry.metrics();
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
  return { backlog: value('access_control_outbox_backlog_events'), age: value('access_control_outbox_oldest_event_age_seconds') };
}

describe('ServiceMetrics: the outbox gauges', () => {
  it('reads both gauges of a scrape from one probe answer, never the answer of the scrape before', async () => {
    const registry = new Registry();
    const metrics = new ServiceMetrics({ registry });
    let calls = 0;
    // Each answer differs: backlog n, its oldest event n × 100 s old.
    metrics.trackOutbox(async () => {
      calls++;
      return { backlog: calls, oldest: new Date(Date.now() - calls * 100_000) };
    });
    for (let scrape = 1; scrape <= 3; scrape++) {
      const { backlog, age } = await outboxGauges(registry);
      expect(backlog).toBe(scrape);
      expect(Math.round(age / 100)).toBe(scrape);
    }
    expect(calls).toBe(3);
  });

  it('says NaN (unknown) when the database fails or does not answer within 2 s, not the last numbers, and without waiting longer', async () => {
    const registry = new Registry();
    const metrics = new ServiceMetrics({ registry });
    let mode: 'answer' | 'fail' | 'hang' = 'answer';
    metrics.trackOutbox(() => {
      if (mode === 'fail') return Promise.reject(new Error('connection lost'));
      if (mode === 'hang') return new Promise(() => undefined);
      return Promise.resolve({ backlog: 7, oldest: new Date(Date.now() - 30_000) });
    });
    expect((await outboxGauges(registry)).backlog).toBe(7);
    mode = 'fail';
    expect(await outboxGauges(registry)).toEqual({ backlog: Number.NaN, age: Number.NaN });
    mode = 'hang';
    const started = Date.now();
    expect(await outboxGauges(registry)).toEqual({ backlog: Number.NaN, age: Number.NaN });
    expect(Date.now() - started).toBeLessThan(3_000);
    mode = 'answer';
    expect((await outboxGauges(registry)).backlog).toBe(7);
  });
});
