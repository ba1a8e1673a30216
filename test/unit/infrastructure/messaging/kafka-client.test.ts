import '../../../../src/infrastructure/messaging/kafka-client';

/**
 * kafkajs' per-connection request queue, as the client's connections use it, once kafka-client.ts has loaded: no
 * check scheduled while nothing is pending (kafkajs 2.2.4 woke every millisecond for ever), and a request queued
 * while throttled or over the in-flight limit still goes out.
 */
interface Queue {
  push(request: { entry: { correlationId: number; apiName: string; apiKey: number; apiVersion: number; resolve(): void; reject(e: Error): void }; expectResponse: boolean; sendRequest(): void }): void;
  fulfillRequest(response: { correlationId: number; payload: Buffer; size: number }): void;
  checkPendingRequests(): void;
  maybeThrottle(ms: number): void;
  destroy(): void;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const RequestQueue = require('kafkajs/src/network/requestQueue') as new (options: object) => Queue;

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const queue = (maxInFlightRequests: number | null = null) =>
  new RequestQueue({ maxInFlightRequests, requestTimeout: 30_000, enforceRequestTimeout: false, clientId: 'test', broker: 'broker:9092', logger: quiet });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function request(correlationId: number, sent: number[]) {
  return {
    entry: { correlationId, apiName: 'Produce', apiKey: 0, apiVersion: 7, resolve() {}, reject() {} },
    expectResponse: true,
    sendRequest: () => sent.push(correlationId),
  };
}

describe('kafkajs request queue, as kafka-client.ts leaves it', () => {
  it('schedules no check while nothing is pending: an answered request leaves the process asleep, and no negative timeout', async () => {
    const q = queue();
    let checks = 0;
    const check = q.checkPendingRequests.bind(q);
    q.checkPendingRequests = () => {
      checks++;
      check();
    };
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      const sent: number[] = [];
      q.push(request(1, sent));
      q.fulfillRequest({ correlationId: 1, payload: Buffer.alloc(0), size: 0 });
      await sleep(200);
      // The answer's own check, and nothing after it (kafkajs alone: about 180 in these 200 ms).
      expect({ sent, checks }).toEqual({ sent: [1], checks: 1 });
      expect(warnings).not.toContain('TimeoutNegativeWarning');
    } finally {
      process.off('warning', onWarning);
      q.destroy();
    }
  });

  it('still sends a request queued while throttled once the throttle ends, and one over the in-flight limit once a slot frees', async () => {
    const throttled = queue();
    const sent: number[] = [];
    throttled.maybeThrottle(50);
    throttled.push(request(1, sent));
    expect(sent).toEqual([]);
    await sleep(150);
    expect(sent).toEqual([1]);
    throttled.destroy();

    const limited = queue(1);
    const sentToo: number[] = [];
    limited.push(request(1, sentToo));
    limited.push(request(2, sentToo));
    expect(sentToo).toEqual([1]);
    limited.fulfillRequest({ correlationId: 1, payload: Buffer.alloc(0), size: 0 });
    expect(sentToo).toEqual([1, 2]);
    limited.destroy();
  });
});
