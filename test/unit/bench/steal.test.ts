import { cpuTimes, stealNote, stealShare } from '../../../bench/steal';

describe('hypervisor steal in a benchmark row', () => {
  it('is the share of the CPU time wanted between two readings that the host took', () => {
    expect(stealShare({ busy: 1000, steal: 100 }, { busy: 1600, steal: 500 })).toBeCloseTo(0.4);
    expect(stealShare({ busy: 1000, steal: 100 }, { busy: 1000, steal: 100 })).toBeNull();
    expect(stealShare(null, { busy: 1, steal: 0 })).toBeNull();
  });

  it('reads this machine’s counters, which only grow', () => {
    const first = cpuTimes();
    if (first === null) return; // not Linux: nothing to read
    for (let i = 0; i < 1e6; i++) Math.sqrt(i);
    const second = cpuTimes()!;
    expect(second.busy).toBeGreaterThanOrEqual(first.busy);
    expect(second.steal).toBeGreaterThanOrEqual(first.steal);
  });

  it('names the rounds and the steal in the note only when the host took a noticeable share', () => {
    expect(stealNote({ ratios: [0.89, 1.153, 0.991], steal: [0.31, 0.44, 0.38] })).toBe('rounds 0.89, 1.15, 0.99 at 31–44 % hypervisor steal');
    expect(stealNote({ ratios: [0.9, 0.95], steal: [0.2, 0.2] })).toBe('rounds 0.90, 0.95 at 20 % hypervisor steal');
    expect(stealNote({ ratios: [0.9, 0.95], steal: [0.01, 0.02] })).toBeUndefined();
    expect(stealNote({ ratios: [0.9], steal: [null] })).toBeUndefined();
  });
});
