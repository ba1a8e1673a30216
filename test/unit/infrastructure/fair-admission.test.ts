import { AdmissionRefusedError, FairAdmission } from '../../../src/infrastructure/system/fair-admission';

/** Admits `party` and records when; the release is kept to be called by the test. */
function enter(admission: FairAdmission, party: string, log: string[], releases: (() => void)[]) {
  return admission.admit(party).then((release) => {
    log.push(party);
    releases.push(release);
  });
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('FairAdmission', () => {
  it('runs at most its slots at once; the lines are served in turn, one request each', async () => {
    const admission = new FairAdmission({ slots: 2, waitMs: 60_000 });
    const log: string[] = [];
    const releases: (() => void)[] = [];
    const entered = [
      ...Array.from({ length: 6 }, () => enter(admission, 'a', log, releases)),
      ...Array.from({ length: 2 }, () => enter(admission, 'b', log, releases)),
      enter(admission, 'c', log, releases),
    ];
    await settle();
    expect(log).toEqual(['a', 'a']);
    expect(admission.load).toEqual({ running: 2, waiting: 7 });
    // One slot at a time: a, b and c take turns where arrival order would have served a's four first.
    while (releases.length > 0) {
      releases.shift()!();
      await settle();
    }
    await Promise.all(entered);
    expect(log).toEqual(['a', 'a', 'a', 'b', 'c', 'a', 'b', 'a', 'a']);
    expect(admission.load).toEqual({ running: 0, waiting: 0 });
  });

  it('refuses a request that waited its time without a slot, and it never runs; the others keep their places', async () => {
    jest.useFakeTimers();
    try {
      const admission = new FairAdmission({ slots: 1, waitMs: 5_000 });
      const first = await admission.admit('a');
      const refused = admission.admit('b');
      jest.advanceTimersByTime(3_000);
      const later = admission.admit('c');
      jest.advanceTimersByTime(2_000);
      await expect(refused).rejects.toBeInstanceOf(AdmissionRefusedError);
      expect(admission.load).toEqual({ running: 1, waiting: 1 });
      first();
      const release = await later;
      expect(admission.load).toEqual({ running: 1, waiting: 0 });
      release();
      release(); // a second call gives back nothing more
      expect(admission.load).toEqual({ running: 0, waiting: 0 });
    } finally {
      jest.useRealTimers();
    }
  });
});
