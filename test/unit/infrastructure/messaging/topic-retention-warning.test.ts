import { ConfigResourceTypes } from 'kafkajs';
import { createLogger } from '../../../../src/infrastructure/logging/logger';
import { warnOfOtherRetention } from '../../../../src/infrastructure/messaging/kafka-topic-provisioner';

/** The migrate step's check of an existing events topic's retention: a warning at most, never a failed migration. */
describe('warnOfOtherRetention', () => {
  const world = (describeConfigs: () => Promise<unknown>) => {
    const lines: { level: number; msg: string; topic?: string; topics?: string[] }[] = [];
    const logger = createLogger('info', { write: (line: string) => lines.push(JSON.parse(line)) });
    const admin = { describeConfigs } as unknown as Parameters<typeof warnOfOtherRetention>[0];
    return { lines, run: () => warnOfOtherRetention(admin, [{ topic: 'events', partitions: 6, replicationFactor: -1, retentionMs: -1 }, { topic: 'dlq', partitions: 6, replicationFactor: -1 }], logger) };
  };

  it('names an events topic whose retention differs, and asks nothing of a topic with none configured', async () => {
    const asked: unknown[] = [];
    const { lines, run } = world(async (...args: unknown[]) => {
      asked.push(...args);
      return { resources: [{ resourceName: 'events', resourceType: ConfigResourceTypes.TOPIC, configEntries: [{ configName: 'retention.ms', configValue: '604800000' }] }] };
    });
    await run();
    expect(asked).toEqual([expect.objectContaining({ resources: [expect.objectContaining({ name: 'events' })] })]);
    expect(lines.map((l) => [l.level, l.topic])).toEqual([[40, 'events']]);
  });

  it('lets the migration go on when the principal may not read topic configurations, saying the check was skipped', async () => {
    const { lines, run } = world(async () => {
      throw new Error('Not authorized to access topics: [Topic authorization failed]');
    });
    await expect(run()).resolves.toBeUndefined();
    expect(lines).toEqual([expect.objectContaining({ level: 40, topics: ['events'], msg: "cannot read the Kafka topics' retention; left unchecked" })]);
  });
});
