/**
 * When the relay's loop runs a pass (`lingerMs`, `auditLingerMs`), on Jest's fake timers and clock: only nudges
 * and the time the test moves on decide, not the machine's speed. The pass is a stand-in answering what the test
 * queued.
 */
import type { DataSource } from 'typeorm';
import { createLogger } from '../../../src/infrastructure/logging/logger';
import type { PassOutcome, OutboxPublishPass } from '../../../src/infrastructure/messaging/outbox-publish-pass';
import { OutboxRelayLoop } from '../../../src/infrastructure/messaging/outbox-relay-loop';
import { outboxRelaySettings } from '../../../src/infrastructure/messaging/outbox-relay-options';
import type { OutboxRetentionSweeper } from '../../../src/infrastructure/messaging/outbox-retention-sweeper';
import { Backoff } from '../../../src/infrastructure/system/backoff';

const LINGER = 10;
const AUDIT_LINGER = 1_000;
const POLL = 60_000;

const mysql = { options: { type: 'mariadb' } } as unknown as DataSource;
const settingsOf = (options: { lingerMs?: number; auditLingerMs?: number }) =>
  outboxRelaySettings({ dataSource: mysql, publisher: { publish: async () => undefined, close: async () => undefined }, logger: createLogger('silent'), ...options });

function rig() {
  const clock = { now: () => new Date() };
  const outcomes: PassOutcome[] = [];
  /** The clock's time at each pass. */
  const passes: number[] = [];
  const pass = {
    run: async () => {
      passes.push(clock.now().getTime());
      return outcomes.shift() ?? { published: 0 };
    },
  } as unknown as OutboxPublishPass;
  const sweeper = { sweepNext: () => undefined, sweepIfDue: async () => undefined } as unknown as OutboxRetentionSweeper;
  const loop = new OutboxRelayLoop({
    clock,
    pollIntervalMs: POLL,
    lingerMs: LINGER,
    auditLingerMs: AUDIT_LINGER,
    pass,
    sweeper,
    backoff: new Backoff({ initialMs: 500, maxMs: 1_000 }, clock),
    logger: createLogger('silent'),
  });
  /** Passes so far, once the time moved on by `advanceMs` and every timer and promise due meanwhile ran. */
  const passesAfter = async (advanceMs = 0) => {
    await jest.advanceTimersByTimeAsync(advanceMs);
    await jest.advanceTimersByTimeAsync(0);
    return passes.length;
  };
  return { loop, outcomes, passes, passesAfter };
}

describe('OutboxRelayLoop lingers', () => {
  let stop: (() => Promise<unknown>) | undefined;
  beforeEach(() => {
    jest.useFakeTimers({ now: new Date('2026-01-31T12:00:00.000Z') });
  });
  afterEach(async () => {
    const stopping = stop?.();
    await jest.advanceTimersByTimeAsync(0);
    await stopping;
    stop = undefined;
    jest.useRealTimers();
  });

  it('lingerMs after a nudge of user events; auditLingerMs after a nudge of audit entries only', async () => {
    const { loop, passesAfter } = rig();
    loop.start();
    stop = () => loop.stop();
    expect(await passesAfter()).toBe(1); // the first pass, then asleep until nudged
    expect(loop.idle).toBe(true);

    loop.nudge('events');
    expect(await passesAfter(LINGER - 1)).toBe(1);
    expect(await passesAfter(1)).toBe(2);

    loop.nudge('audit');
    expect(await passesAfter(LINGER)).toBe(2);
    expect(await passesAfter(AUDIT_LINGER - LINGER - 1)).toBe(2);
    expect(await passesAfter(1)).toBe(3);
  });

  it('a user event committed during an audit linger cuts it to lingerMs', async () => {
    const { loop, passesAfter } = rig();
    loop.start();
    stop = () => loop.stop();
    expect(await passesAfter()).toBe(1);
    loop.nudge('audit');
    expect(await passesAfter(100)).toBe(1);
    loop.nudge('events');
    expect(await passesAfter(LINGER - 1)).toBe(1);
    expect(await passesAfter(1)).toBe(2);
  });

  it('after a pass of audit entries only, the next one waits auditLingerMs; after user events or a full batch, lingerMs', async () => {
    const { loop, outcomes, passesAfter } = rig();
    outcomes.push(
      { published: 0 },
      { published: 5, userEvents: 0, full: false }, // audit only: the long linger
      { published: 5, userEvents: 1, full: false }, // a user event: the short one
      { published: 100, userEvents: 0, full: true }, // a full batch: more is waiting, the short one
      { published: 3, userEvents: 0, full: false }, // audit only again, cut short by a user event's nudge
    );
    loop.start();
    stop = () => loop.stop();
    expect(await passesAfter()).toBe(1);
    loop.nudge('audit');
    expect(await passesAfter(AUDIT_LINGER)).toBe(2);
    expect(await passesAfter(LINGER)).toBe(2);
    expect(await passesAfter(AUDIT_LINGER - LINGER)).toBe(3);
    expect(await passesAfter(LINGER)).toBe(4);
    expect(await passesAfter(LINGER)).toBe(5);
    expect(await passesAfter(LINGER)).toBe(5);
    loop.nudge('audit'); // an audit nudge does not shorten it
    expect(await passesAfter(LINGER)).toBe(5);
    loop.nudge('events');
    expect(await passesAfter(LINGER)).toBe(6);
  });
});

describe('outboxRelaySettings: auditLingerMs', () => {
  it('defaults to 100 ms, and never below lingerMs unless set', () => {
    expect(settingsOf({}).auditLingerMs).toBe(100);
    expect(settingsOf({ lingerMs: 250 }).auditLingerMs).toBe(250);
    expect(settingsOf({ lingerMs: 250, auditLingerMs: 0 }).auditLingerMs).toBe(0);
    expect(settingsOf({ auditLingerMs: 40 }).auditLingerMs).toBe(40);
  });

  it('refuses a negative or non-finite value', () => {
    expect(() => settingsOf({ auditLingerMs: -1 })).toThrow(/auditLingerMs must be 0 or more/);
    expect(() => settingsOf({ auditLingerMs: Number.NaN })).toThrow(/auditLingerMs/);
  });
});
