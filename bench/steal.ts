/**
 * The hypervisor's steal: on a shared host the guest's cores are taken from it at times, and a round measured then
 * ran on fewer cores than one measured at rest. Read from /proc/stat around each round, it is named beside the
 * ratios it may have moved.
 */
import { readFileSync } from 'node:fs';

/** The machine's CPU time so far (/proc/stat, in clock ticks): what the guest ran, and what the hypervisor took (steal). */
export interface CpuTimes { busy: number; steal: number }

/** Null where there is no /proc/stat (not Linux): the steal is then not known. */
export function cpuTimes(): CpuTimes | null {
  try {
    const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
    // user nice system idle iowait irq softirq steal (guest and guest_nice are inside user and nice)
    const [user, nice, system, , , irq, softirq, steal] = fields.map(Number);
    return { busy: user! + nice! + system! + irq! + softirq!, steal: steal ?? 0 };
  } catch {
    return null;
  }
}

/**
 * The share of the CPU time the guest wanted between two readings that the hypervisor gave to someone else
 * (steal over busy plus steal): on a shared host, a measure whose rounds ran at 30 % steal ran on two thirds of the
 * cores it had at rest. Null when either reading is missing or nothing ran.
 */
export function stealShare(from: CpuTimes | null, to: CpuTimes | null): number | null {
  if (!from || !to) return null;
  const steal = to.steal - from.steal;
  const wanted = to.busy - from.busy + steal;
  return wanted > 0 ? steal / wanted : null;
}

/** Rounds that ran with more of the CPU taken than this are named in the row's note. */
const NOTED_STEAL = 0.05;

/** "rounds 0.89, 1.15, 0.99 at 31–44 % hypervisor steal" when the host took a noticeable share of the cores. */
export function stealNote(result: { ratios: number[]; steal: (number | null)[] }): string | undefined {
  const known = result.steal.filter((s): s is number => s !== null);
  if (known.length === 0 || Math.max(...known) < NOTED_STEAL) return undefined;
  const pct = (value: number) => (value * 100).toFixed(0);
  const [low, high] = [Math.min(...known), Math.max(...known)];
  return `rounds ${result.ratios.map((r) => r.toFixed(2)).join(', ')} at ${pct(low) === pct(high) ? pct(low) : `${pct(low)}–${pct(high)}`} % hypervisor steal`;
}
