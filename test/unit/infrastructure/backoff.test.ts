import { Backoff, backoffDelay } from '../../../src/infrastructure/system/backoff';
import { ClockAlarm } from '../../../src/infrastructure/system/clock-alarm';
import { FixedClock } from '../../support/fakes/fixed-clock';

describe('backoffDelay', () => {
  it('doubles per attempt from initialMs, ±20 %, never above maxMs', () => {
    for (let i = 0; i < 50; i++) {
      expect(backoffDelay(1, 500, 30_000)).toBeGreaterThanOrEqual(400);
      expect(backoffDelay(1, 500, 30_000)).toBeLessThanOrEqual(600);
      expect(backoffDelay(4, 500, 30_000)).toBeGreaterThanOrEqual(3_200);
      expect(backoffDelay(4, 500, 30_000)).toBeLessThanOrEqual(4_800);
      expect(backoffDelay(40, 500, 30_000)).toBeGreaterThanOrEqual(24_000);
      expect(backoffDelay(40, 500, 30_000)).toBeLessThanOrEqual(30_000);
    }
  });
});

describe('Backoff', () => {
  it('keeps its deadline on the clock, counts failures in a row, and starts over after a success', () => {
    const clock = new FixedClock();
    const backoff = new Backoff({ initialMs: 1_000, maxMs: 8_000 }, clock);
    expect(backoff.waitingUntil()).toBeNull();

    const first = backoff.fail();
    expect(first).toBeGreaterThanOrEqual(800);
    expect(first).toBeLessThanOrEqual(1_200);
    expect(backoff.waitingUntil()).toEqual(new Date(clock.now().getTime() + first));
    clock.advance(first - 1);
    expect(backoff.waitingUntil()).not.toBeNull();
    clock.advance(1);
    expect(backoff.waitingUntil()).toBeNull();

    const second = backoff.fail();
    expect(backoff.consecutiveFailures).toBe(2);
    expect(second).toBeGreaterThanOrEqual(1_600);
    expect(second).toBeLessThanOrEqual(2_400);

    backoff.reset();
    expect(backoff.consecutiveFailures).toBe(0);
    expect(backoff.waitingUntil()).toBeNull();
    expect(backoff.fail()).toBeLessThanOrEqual(1_200);
  });
});

describe('ClockAlarm', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  async function hasRung(alarm: ClockAlarm): Promise<boolean> {
    let rung = false;
    void alarm.rung.then(() => (rung = true));
    await Promise.resolve();
    return rung;
  }

  it('rings when the clock reaches its time, however long the timers ran, and within checkEveryMs of the clock moving', async () => {
    const clock = new FixedClock();
    const alarm = new ClockAlarm(clock, clock.now().getTime() + 60_000, 100);

    jest.advanceTimersByTime(120_000); // real time passes, the clock stands still
    expect(await hasRung(alarm)).toBe(false);

    clock.advance(60_000);
    jest.advanceTimersByTime(99);
    expect(await hasRung(alarm)).toBe(false);
    jest.advanceTimersByTime(1);
    expect(await hasRung(alarm)).toBe(true);
  });

  it('does not wait longer when the clock steps back meanwhile', async () => {
    const clock = new FixedClock();
    const alarm = new ClockAlarm(clock, clock.now().getTime() + 1_000, 100);
    clock.advance(-60_000);
    jest.advanceTimersByTime(100);
    clock.advance(1_000);
    jest.advanceTimersByTime(100);
    expect(await hasRung(alarm)).toBe(true);
  });

  it('rings earlier when brought forward (never later), at once when rung, and never once cancelled', async () => {
    const clock = new FixedClock();
    const start = clock.now().getTime();
    const later = new ClockAlarm(clock, start + 1_000, 1_000);
    later.bringForward(start + 5_000);
    const earlier = new ClockAlarm(clock, start + 1_000, 1_000);
    earlier.bringForward(start + 10);
    clock.advance(10);
    jest.advanceTimersByTime(10);
    expect(await hasRung(earlier)).toBe(true);
    expect(await hasRung(later)).toBe(false);
    clock.advance(990);
    jest.advanceTimersByTime(990);
    expect(await hasRung(later)).toBe(true);

    const rungByHand = new ClockAlarm(clock, clock.now().getTime() + 1_000, 1_000);
    rungByHand.ring();
    expect(await hasRung(rungByHand)).toBe(true);

    const cancelled = new ClockAlarm(clock, clock.now().getTime() + 1_000, 1_000);
    cancelled.cancel();
    clock.advance(1_000);
    jest.advanceTimersByTime(1_000);
    expect(await hasRung(cancelled)).toBe(false);
    expect(jest.getTimerCount()).toBe(0);
  });
});
