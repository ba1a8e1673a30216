import { Writable } from 'node:stream';
import { createLogger } from '../../../src/infrastructure/logging/logger';
import { kafkaHeadersFor, toCloudEvent } from '../../../src/infrastructure/messaging/cloud-event';
import { requestContext } from '../../../src/infrastructure/observability/request-context';

const message = {
  id: '019a3c1e-8f0b-7c41-9d2e-5b8f0a1c2d3e',
  aggregateId: '019a3c1e-8f0a-7b11-8a6f-0e2d4c6b8a10',
  type: 'UserInvited',
  payload: '{"email":"ada@example.com"}',
  occurredAt: new Date('2026-01-31T12:00:00.123Z'),
};

describe('the request id on events', () => {
  it('becomes the `requestid` extension attribute and the Kafka header x-request-id', () => {
    const event = toCloudEvent({ ...message, requestId: 'req-42' });
    expect(event.requestid).toBe('req-42');
    expect(kafkaHeadersFor(event)).toEqual({
      'content-type': 'application/cloudevents+json; charset=UTF-8',
      ce_id: message.id,
      ce_type: 'UserInvited',
      'x-request-id': 'req-42',
    });
  });

  it('is left out, attribute and header alike, for an event no request caused', () => {
    for (const requestId of [null, undefined]) {
      const event = toCloudEvent({ ...message, requestId });
      expect('requestid' in event).toBe(false);
      expect(Object.keys(kafkaHeadersFor(event))).toEqual(['content-type', 'ce_id', 'ce_type']);
    }
  });
});

describe('the subject sequence on events', () => {
  it('becomes the `subjectsequence` extension attribute, a JSON integer', () => {
    const event = toCloudEvent({ ...message, sequence: 7 });
    expect(event.subjectsequence).toBe(7);
    expect(JSON.parse(JSON.stringify(event)).subjectsequence).toBe(7);
  });

  it('is left out for a row written before events were numbered', () => {
    for (const sequence of [null, undefined]) expect('subjectsequence' in toCloudEvent({ ...message, sequence })).toBe(false);
  });
});

describe('the request id in log lines', () => {
  function capture() {
    const lines: Record<string, unknown>[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    });
    return { logger: createLogger('info', stream), lines };
  }

  it('is added to lines an adapter logs inside a request, once, and not outside one', () => {
    const { logger, lines } = capture();
    logger.info('outside');
    requestContext.run({ requestId: 'req-7' }, () => {
      logger.child({ component: 'adapter' }).info('inside');
      logger.child({ reqId: 'req-7' }).info('request logger');
    });
    expect(lines.map((l) => [l.msg, l.reqId])).toEqual([
      ['outside', undefined],
      ['inside', 'req-7'],
      ['request logger', 'req-7'],
    ]);
  });
});
